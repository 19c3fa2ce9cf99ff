import type { PlatformGuide } from "@resident/admin-api";
import { chatworkFailModeConsequences, chatworkOutageBehaviour } from "./fail-mode.ts";

/**
 * The admin console's Chatwork page: README.md's "Setting up a workspace". The Japanese names Chatwork's screens as
 * Chatwork itself does (「サービス連携」, 「API管理」, 「Webhook」, 「アカウントイベント」, 「ルームイベント」).
 */
export const chatworkGuide: PlatformGuide = {
  displayName: "Chatwork",
  credentialFields: [
    {
      name: "apiToken",
      label: { en: "API token", ja: "APIトークン" },
      secret: true,
      help: {
        en: "Of the bot's own Chatwork account: Service integration → API token.",
        ja: "ボット用の Chatwork アカウントの「サービス連携」→「APIトークン」で発行したものです。",
      },
    },
    {
      name: "webhookTokens",
      label: { en: "Webhook tokens", ja: "Webhookトークン" },
      secret: true,
      list: true,
      help: {
        en: "The token of every webhook pointing at the webhook URL: the account webhook and each room webhook.",
        ja: "Webhook URL を送信先にしたすべての Webhook（アカウントの Webhook と各ルームの Webhook）のトークンです。",
      },
    },
  ],
  setupSteps: [
    {
      en:
        "Chatwork has no bot users: keep an ordinary Chatwork account for the bot, and with it create an API token " +
        "(Service integration → API token).",
      ja:
        "Chatwork にはボット専用のユーザーがないため、ボット用に通常の Chatwork アカウントを用意し、そのアカウントで" +
        "APIトークンを発行します（「サービス連携」→「APIトークン」）。",
    },
    {
      en:
        "In the API management screen, create an account webhook (account events: mentions to me) with the " +
        "webhook URL.",
      ja:
        "「API管理」画面の「Webhook」で、Webhook URL を指定してアカウントイベント（自分へのメンション）の Webhook を" +
        "新規作成します。",
    },
    {
      en:
        "For each of the bot's direct chats, create a room webhook (room events: message created) with the same " +
        "URL, so the bot hears messages there without a mention. Chatwork allows five webhooks per account.",
      ja:
        "メンションなしでもメッセージを受け取れるよう、ボットのダイレクトチャットごとに、同じ URL でルームイベント" +
        "（メッセージ作成）の Webhook を作成します。Webhook は 1 アカウントにつき 5 件まで設定できます。",
    },
    {
      en: "Save the API token and the token of every webhook here. A delivery signed by a token not listed is refused.",
      ja:
        "APIトークンと、すべての Webhook のトークンをこの画面で保存します。登録していないトークンで署名された通知は" +
        "拒否します。",
    },
    {
      en: "When you open a new direct chat with a room webhook of its own, add its token here and save again.",
      ja: "ルームの Webhook を持つダイレクトチャットを新たに始めたときは、そのトークンをここに追加して保存し直します。",
    },
  ],
  outageBehaviour: chatworkOutageBehaviour,
  failModeConsequences: chatworkFailModeConsequences,
  identityLabels: {
    accountId: { en: "Account ID", ja: "アカウント ID" },
    name: { en: "Name", ja: "名前" },
    directRoomIds: { en: "Direct chat room IDs", ja: "ダイレクトチャットのルーム ID" },
  },
};
