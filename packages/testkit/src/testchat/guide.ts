import type { PlatformGuide } from "@resident/admin-api";

/** The console's page for Testchat, the chat platform that exists only in tests. */
export const testchatGuide: PlatformGuide = {
  displayName: "Testchat",
  credentialFields: [
    {
      name: "apiToken",
      label: { en: "API token", ja: "APIトークン" },
      secret: true,
      help: {
        en: "The bot's token, from the fake's addBot().",
        ja: "フェイクの addBot() で作ったボットのトークンです。",
      },
    },
    {
      name: "signingSecret",
      label: { en: "Signing secret", ja: "署名シークレット" },
      secret: true,
      help: { en: "The secret the webhook is signed with.", ja: "Webhook の署名に使うシークレットです。" },
    },
  ],
  setupSteps: [
    { en: "Add a bot to the fake Testchat.", ja: "フェイクの Testchat にボットを追加します。" },
    {
      en: "Save its token and the signing secret here.",
      ja: "そのトークンと署名シークレットをこの画面で保存します。",
    },
    { en: "Deliver to the webhook URL.", ja: "Webhook URL に配信します。" },
  ],
  outageBehaviour: {
    en:
      "While Redis is down, deliveries are taken in and answered through PostgreSQL; while PostgreSQL is down, " +
      "through Redis, except for a workspace no instance has seen since it started (HTTP 503).",
    ja:
      "Redis の停止中は PostgreSQL を通して、PostgreSQL の停止中は Redis を通して配信を受け付けて返信します。" +
      "ただし、起動後にどのインスタンスもまだ読み込んでいないワークスペースへの配信は拒否します（HTTP 503）。",
  },
  failModeConsequences: {
    closed: {
      en: "If Redis and PostgreSQL are both down, deliveries are refused (HTTP 503); Testchat never retries, so they are lost.",
      ja: "Redis と PostgreSQL の両方が停止している間は配信を拒否します（HTTP 503）。Testchat は再送しないため、その配信は失われます。",
    },
    open: {
      en:
        "If Redis and PostgreSQL are both down, the instance that receives a delivery answers it on its own; a twin " +
        "reaching another instance may be answered twice.",
      ja:
        "Redis と PostgreSQL の両方が停止している間は、配信を受け取ったインスタンスが単独で返信します。同じメッセージの" +
        "双子の配信が別のインスタンスに届くと、二重に返信することがあります。",
    },
  },
  identityLabels: {
    botId: { en: "Bot ID", ja: "ボット ID" },
    name: { en: "Name", ja: "名前" },
  },
};
