import type { PlatformGuide } from "@resident/admin-api";
import { teamsAppTypes } from "./credentials.ts";

/**
 * The admin console's Teams page: README.md's "Registering a bot", and what each fail mode costs on Teams. The
 * Japanese names the Azure portal's screens as Microsoft's Japanese documentation does (「構成」,
 * 「メッセージング エンドポイント」, 「証明書とシークレット」); manifest fields and app types stay as spelt.
 */
export const teamsGuide: PlatformGuide = {
  displayName: "Microsoft Teams",
  credentialFields: [
    {
      name: "appId",
      label: { en: "App ID", ja: "アプリ ID" },
      secret: false,
      help: { en: "The Azure Bot's Microsoft App ID.", ja: "Azure Bot の「Microsoft アプリ ID」です。" },
    },
    {
      name: "appPassword",
      label: { en: "App password", ja: "アプリ パスワード" },
      secret: true,
      help: {
        en: "A client secret of the bot's app registration (Certificates & secrets).",
        ja: "ボットのアプリ登録のクライアント シークレットです（「証明書とシークレット」で作成します）。",
      },
    },
    {
      name: "appType",
      label: { en: "App type", ja: "アプリの種類" },
      secret: false,
      optional: true,
      choices: teamsAppTypes,
      help: { en: "MultiTenant when left empty.", ja: "空のままにすると MultiTenant です。" },
    },
    {
      name: "appTenantId",
      label: { en: "App tenant ID", ja: "アプリのテナント ID" },
      secret: false,
      optional: true,
      help: {
        en: "The app's home tenant; required for a SingleTenant app.",
        ja: "アプリのホーム テナントです。SingleTenant のアプリでは必須です。",
      },
    },
  ],
  setupSteps: [
    {
      en:
        "Create an Azure Bot (or an Entra app registration for a Teams app); note its app ID and create a client " +
        "secret (the app password). Note whether it is MultiTenant or SingleTenant, and for SingleTenant its " +
        "tenant ID.",
      ja:
        "Azure Bot（または Teams アプリ用の Entra のアプリ登録）を作成し、アプリ ID を控えて、クライアント " +
        "シークレット（アプリ パスワード）を作成します。MultiTenant か SingleTenant かを確認し、SingleTenant の" +
        "場合はテナント ID も控えます。",
    },
    {
      en:
        "Save them here: resident fetches a token with them from Microsoft before it keeps them, so wrong ones are " +
        "refused at once with Microsoft's own words.",
      ja:
        "この画面で保存します。resident は保存する前に、その値で Microsoft からトークンを取得するため、誤った値は" +
        "その場で Microsoft のメッセージとともに拒否されます。",
    },
    {
      en:
        "In the Azure Bot's Configuration, set the messaging endpoint to the webhook URL, and enable the Microsoft " +
        "Teams channel.",
      ja:
        "Azure Bot の「構成」で「メッセージング エンドポイント」に Webhook URL を設定し、「チャネル」で " +
        "Microsoft Teams チャネルを有効にします。",
    },
    {
      en:
        "Install the Teams app whose manifest names the app ID as bots[].botId, with the scopes personal, groupChat " +
        "and team.",
      ja:
        "マニフェストの bots[].botId にアプリ ID を指定し、スコープを personal、groupChat、team とした Teams " +
        "アプリをインストールします。",
    },
  ],
  outageBehaviour: {
    en:
      "While Redis is down, messages are taken in and answered through PostgreSQL, which every instance shares: " +
      "nothing is lost and nothing is answered twice. While PostgreSQL is down, messages keep coming in through " +
      "Redis and are answered, once, as soon as it is back; only a workspace that no instance has seen since it " +
      "started is refused meanwhile (HTTP 503), and Teams delivers those messages again for a short while only. " +
      "The fail mode below matters only while both are down at once.",
    ja:
      "Redis の停止中は、すべてのインスタンスが共有する PostgreSQL を通してメッセージを受け付けて返信します。" +
      "メッセージを取りこぼすことも、二重に返信することもありません。PostgreSQL の停止中も Redis を通して" +
      "メッセージを受け付け、復旧しだい一度だけ返信します。その間は、起動後にどのインスタンスもまだ読み込んでいない" +
      "ワークスペースへのメッセージだけを拒否し（HTTP 503）、Teams が再送するのは短い間だけです。下の障害時モードが" +
      "関わるのは、両方が同時に停止している間だけです。",
  },
  failModeConsequences: {
    closed: {
      en:
        "If Redis and PostgreSQL are both down, messages are refused (HTTP 503) and Teams delivers them again for a " +
        "short while. A message whose retry arrives after a store is back is answered then, once; during a longer " +
        "outage messages go unanswered. Nothing is ever answered twice. Recommended for Teams (the default).",
      ja:
        "Redis と PostgreSQL の両方が停止している間はメッセージを拒否し（HTTP 503）、Teams がしばらくの間再送します。" +
        "どちらかの復旧後に届いた再送には、その時点で一度だけ返信します。停止が長引くと、その間のメッセージには" +
        "返信しません。二重に返信することはありません。Teams ではこちらをおすすめします（既定）。",
    },
    open: {
      en:
        "If Redis and PostgreSQL are both down, the instance that receives a message answers it on its own. Nothing " +
        "is lost to the outage, but a Teams retry of one message may reach another instance and be answered twice, " +
        "and an answer still being written when its instance stops is lost.",
      ja:
        "Redis と PostgreSQL の両方が停止している間は、メッセージを受け取ったインスタンスが単独で返信します。停止に" +
        "よってメッセージを取りこぼすことはありませんが、同じメッセージの Teams による再送が別のインスタンスに届くと、" +
        "二重に返信することがあります。また、返信の作成中にそのインスタンスが止まると、その返信は失われます。",
    },
  },
  identityLabels: {
    appId: { en: "App ID", ja: "アプリ ID" },
    botId: { en: "Bot ID", ja: "ボット ID" },
  },
};
