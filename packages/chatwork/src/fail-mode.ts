import type { FailMode, Translated } from "@resident/core";

/*
 * Chatwork never redelivers a webhook. "closed" answers a delivery that meets a store outage with 503 and waits for a
 * retry that never comes: the message is lost, silently. "open" answers it without the shared store, where the only
 * risk is a twin (mention_to_me + message_created of one message) reaching two instances during the outage and being
 * answered twice. A rare duplicate beats a certain loss, so Chatwork workspaces fail open unless the admin decides
 * otherwise.
 */
export const chatworkDefaultFailMode: FailMode = "open";

/** What each fail mode means for a Chatwork workspace while the shared store is down; shown in the admin console. */
export const chatworkFailModeConsequences: Record<FailMode, Translated> = {
  open: {
    en:
      "While the shared store is down, the instance that receives a message answers it on its own. Nothing is lost " +
      "to the outage, but a message that arrives through both an account webhook and a room webhook may reach two " +
      "instances and be answered twice, and an answer still being written when its instance stops is lost. " +
      "Recommended for Chatwork (the default).",
    ja:
      "共有ストアの停止中は、メッセージを受け取ったインスタンスが単独で返信します。停止によってメッセージを取りこぼす" +
      "ことはありませんが、アカウントの Webhook とルームの Webhook の両方から届いたメッセージが 2 つのインスタンスに" +
      "届くと、二重に返信することがあります。また、返信の作成中にそのインスタンスが止まると、その返信は失われます。" +
      "Chatwork ではこちらをおすすめします（既定）。",
  },
  closed: {
    en:
      "While the shared store is down, messages are refused (HTTP 503). Chatwork never resends a webhook, so every " +
      "message sent to the bot during the outage is lost: it is never answered, and nobody is told. Nothing is " +
      "ever answered twice.",
    ja:
      "共有ストアの停止中はメッセージを拒否します（HTTP 503）。Chatwork は Webhook を再送しないため、停止中に" +
      "ボットへ送られたメッセージはすべて失われます。返信されることはなく、誰にも通知されません。二重に返信する" +
      "ことはありません。",
  },
};
