import type { PlatformGuide } from "@resident/admin-api";

/**
 * The admin console's Slack page: README.md's "Creating the Slack app", and what each fail mode costs on Slack. The
 * Japanese names the app settings' screens as Slack's Japanese help does (「OAuth とアクセス許可」,
 * 「イベントサブスクリプション」); scopes, events and API methods stay as Slack spells them.
 */
export const slackGuide: PlatformGuide = {
  displayName: "Slack",
  credentialFields: [
    {
      name: "signingSecret",
      label: { en: "Signing secret", ja: "署名シークレット" },
      secret: true,
      optional: true,
      help: {
        en: "Basic Information → App Credentials → Signing Secret. Needed for events over HTTP (the webhook URL).",
        ja:
          "「基本情報」→「アプリの認証情報」→「署名シークレット」にあります。HTTP（Webhook URL）でイベントを" +
          "受け取るときに必要です。",
      },
    },
    {
      name: "appToken",
      label: { en: "App-level token (Socket Mode)", ja: "アプリレベルトークン（ソケットモード）" },
      secret: true,
      optional: true,
      help: {
        en:
          "Basic Information → App-Level Tokens: a token with the connections:write scope, starting with xapp-. " +
          "Given, events arrive over Socket Mode and no public URL is needed.",
        ja:
          "「基本情報」→「アプリレベルトークン」で connections:write スコープを付けて作る、xapp- で始まるトークン" +
          "です。指定すると、イベントはソケットモードで届き、公開 URL は不要です。",
      },
    },
    {
      name: "botToken",
      label: { en: "Bot token", ja: "ボットトークン" },
      secret: true,
      help: {
        en: "OAuth & Permissions → Bot User OAuth Token, starting with xoxb-.",
        ja: "「OAuth とアクセス許可」→「ボットユーザー OAuth トークン」にある、xoxb- で始まるトークンです。",
      },
    },
    {
      name: "botRefreshToken",
      label: { en: "Refresh token (token rotation)", ja: "リフレッシュトークン（トークンローテーション）" },
      secret: true,
      optional: true,
      help: {
        en:
          "Only with token rotation on: the refresh token (xoxe-…) Slack issued with the bot token. resident renews " +
          "the bot token with it shortly before it expires, once for the whole cluster (the service needs " +
          "SLACK_CLIENT_ID and SLACK_CLIENT_SECRET).",
        ja:
          "トークンローテーションを有効にしている場合のみ：ボットトークンと一緒に Slack が発行した、xoxe- で始まる" +
          "リフレッシュトークンです。resident は有効期限の少し前に、クラスター全体で一度だけボットトークンを更新" +
          "します（サービスに SLACK_CLIENT_ID と SLACK_CLIENT_SECRET が必要です）。",
      },
    },
    {
      name: "botTokenExpiresAt",
      label: { en: "Bot token expires at (epoch ms)", ja: "ボットトークンの有効期限（エポックミリ秒）" },
      secret: false,
      optional: true,
      help: {
        en: "Only with token rotation on: when the bot token expires, in milliseconds since 1970 (issued + expires_in).",
        ja: "トークンローテーションを有効にしている場合のみ：ボットトークンの有効期限（1970 年からのミリ秒）です。",
      },
    },
  ],
  setupSteps: [
    {
      en: "At api.slack.com/apps, choose Create New App → From scratch, and pick your Slack workspace.",
      ja: "api.slack.com/apps で「新しいアプリを作成」→「最初から作成」を選び、Slack ワークスペースを選択します。",
    },
    {
      en:
        "OAuth & Permissions → Bot Token Scopes: add app_mentions:read, chat:write, im:history and channels:history " +
        "(and groups:history, mpim:history to answer in private channels and group DMs). Install the app to the " +
        "workspace and copy the Bot User OAuth Token (xoxb-…).",
      ja:
        "「OAuth とアクセス許可」→「ボットトークンのスコープ」に app_mentions:read、chat:write、im:history、" +
        "channels:history を追加します（プライベートチャンネルとグループ DM でも答えるには groups:history と " +
        "mpim:history も）。アプリをワークスペースにインストールし、「ボットユーザー OAuth トークン」（xoxb-…）を" +
        "コピーします。",
    },
    {
      en: "Basic Information → App Credentials: copy the Signing Secret.",
      ja: "「基本情報」→「アプリの認証情報」で「署名シークレット」をコピーします。",
    },
    {
      en: "Save both here: resident checks the token with Slack (auth.test) before it keeps them.",
      ja: "両方をこの画面で保存します。resident は保存する前に、トークンが有効かを Slack に確認します（auth.test）。",
    },
    {
      en:
        "Event Subscriptions: turn them on and paste the webhook URL as the Request URL (Slack checks it at once). " +
        "Under Subscribe to bot events add app_mention and message.im.",
      ja:
        "「イベントサブスクリプション」を有効にし、Webhook URL を「リクエスト URL」に貼り付けます（Slack がすぐに" +
        "確認します）。「ボットイベントをサブスクライブする」に app_mention と message.im を追加します。",
    },
    {
      en:
        "Or, with no public URL: Socket Mode → turn it on, create an app-level token with connections:write and " +
        "save it here as the app-level token; resident keeps connections open from its instances.",
      ja:
        "公開 URL がない場合は、「ソケットモード」を有効にし、connections:write スコープのアプリレベルトークンを" +
        "作って、この画面でアプリレベルトークンとして保存します。resident がインスタンスから接続を開いたままにします。",
    },
    {
      en:
        "Interactivity & Shortcuts: turn Interactivity on and paste the interactivity URL as its Request URL, so " +
        "the thumbs-up and thumbs-down buttons under each answer are counted (the console shows them per day). " +
        "With Socket Mode, turning Interactivity on is enough: the clicks come over its connections.",
      ja:
        "「インタラクティビティとショートカット」でインタラクティビティを有効にし、インタラクティビティ URL を" +
        "「リクエスト URL」に貼り付けます。回答の下の高評価・低評価ボタンが数えられます（日ごとの数はこの画面に出ます）。" +
        "ソケットモードなら、インタラクティビティを有効にするだけで、クリックは接続を通じて届きます。",
    },
    {
      en: "App Home → Show Tabs: allow users to send messages from the Messages tab, for direct messages.",
      ja:
        "ダイレクトメッセージを受け取るため、「アプリホーム」→「タブを表示」で、メッセージタブからメッセージを" +
        "送信できるようにします。",
    },
  ],
  outageBehaviour: {
    en:
      "While Redis is down, messages are taken in and answered through PostgreSQL, which every instance shares: " +
      "nothing is lost and nothing is answered twice. While PostgreSQL is down, messages keep coming in through " +
      "Redis and are answered, once, as soon as it is back; only a workspace that no instance has seen since it " +
      "started is refused meanwhile (HTTP 503), and Slack sends those messages again, three times over about six " +
      "minutes. The fail mode below matters only while both are down at once.",
    ja:
      "Redis の停止中は、すべてのインスタンスが共有する PostgreSQL を通してメッセージを受け付けて返信します。" +
      "メッセージを取りこぼすことも、二重に返信することもありません。PostgreSQL の停止中も Redis を通して" +
      "メッセージを受け付け、復旧しだい一度だけ返信します。その間は、起動後にどのインスタンスもまだ読み込んでいない" +
      "ワークスペースへのメッセージだけを拒否し（HTTP 503）、Slack が約 6 分の間に 3 回まで再送します。下の" +
      "障害時モードが関わるのは、両方が同時に停止している間だけです。",
  },
  failModeConsequences: {
    closed: {
      en:
        "If Redis and PostgreSQL are both down, messages are refused (HTTP 503) and Slack sends each one again, " +
        "three times over about six minutes. A message whose retry arrives after a store is back is answered then, " +
        "once; one whose retries all fall inside a longer outage is not answered. Nothing is ever answered twice. " +
        "Recommended for Slack (the default).",
      ja:
        "Redis と PostgreSQL の両方が停止している間はメッセージを拒否し（HTTP 503）、Slack が約 6 分の間に 3 回まで" +
        "再送します。どちらかの復旧後に届いた再送には、その時点で一度だけ返信します。再送がすべて長い停止中に収まった" +
        "メッセージには返信しません。二重に返信することはありません。Slack ではこちらをおすすめします（既定）。",
    },
    open: {
      en:
        "If Redis and PostgreSQL are both down, the instance that receives a message answers it on its own. Nothing " +
        "is lost to the outage, but Slack's retries and the two events Slack sends for one message (app_mention and " +
        "message) may reach different instances and be answered twice, and an answer still being written when its " +
        "instance stops is lost.",
      ja:
        "Redis と PostgreSQL の両方が停止している間は、メッセージを受け取ったインスタンスが単独で返信します。停止に" +
        "よってメッセージを取りこぼすことはありませんが、Slack の再送や、1 件のメッセージに対して Slack が送る 2 つの" +
        "イベント（app_mention と message）が別々のインスタンスに届くと、二重に返信することがあります。また、返信の" +
        "作成中にそのインスタンスが止まると、その返信は失われます。",
    },
  },
  identityLabels: {
    botUserId: { en: "Bot user ID", ja: "ボットのユーザー ID" },
    botId: { en: "Bot ID", ja: "ボット ID" },
    teamId: { en: "Workspace ID", ja: "ワークスペース ID" },
  },
};
