import type { PlatformGuide } from "@resident/core";

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
  failModeConsequences: {
    closed: {
      en: "While the shared store is down, deliveries are refused (HTTP 503); Testchat never retries, so they are lost.",
      ja: "共有ストアの停止中は配信を拒否します（HTTP 503）。Testchat は再送しないため、その配信は失われます。",
    },
    open: {
      en:
        "While the shared store is down, the instance that receives a delivery answers it on its own; a twin " +
        "reaching another instance may be answered twice.",
      ja:
        "共有ストアの停止中は、配信を受け取ったインスタンスが単独で返信します。同じメッセージの双子の配信が別の" +
        "インスタンスに届くと、二重に返信することがあります。",
    },
  },
  identityLabels: {
    botId: { en: "Bot ID", ja: "ボット ID" },
    name: { en: "Name", ja: "名前" },
  },
};
