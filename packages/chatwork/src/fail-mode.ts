import type { Translated } from "@resident/admin-api";
import type { FailMode } from "@resident/core";

/*
 * Chatwork never redelivers a webhook. "closed" answers a delivery that meets an outage of both stores with 503 and waits for a
 * retry that never comes: the message is lost, silently. "open" answers it without the shared store, where the only
 * risk is a twin (mention_to_me + message_created of one message) reaching two instances during the outage and being
 * answered twice. A rare duplicate beats a certain loss, so Chatwork workspaces fail open unless the admin decides
 * otherwise.
 */
export const chatworkDefaultFailMode: FailMode = "open";

/** What a store outage means for a Chatwork workspace; shown in the admin console. */
export const chatworkOutageBehaviour: Translated = {
  en:
    "While Redis is down, messages are taken in and answered through PostgreSQL, which every instance shares: " +
    "nothing is lost and nothing is answered twice. While PostgreSQL is down, messages keep coming in through Redis " +
    "and are answered, once, as soon as it is back; only a workspace that no instance has seen since it started is " +
    "refused meanwhile (HTTP 503) — and as Chatwork sends each webhook only once, those messages are lost. The fail " +
    "mode below matters only while both are down at once.",
  ja:
    "Redis の停止中は、すべてのインスタンスが共有する PostgreSQL を通してメッセージを受け付けて返信します。" +
    "メッセージを取りこぼすことも、二重に返信することもありません。PostgreSQL の停止中も Redis を通して" +
    "メッセージを受け付け、復旧しだい一度だけ返信します。その間は、起動後にどのインスタンスもまだ読み込んでいない" +
    "ワークスペースへのメッセージだけを拒否します（HTTP 503）。Chatwork は Webhook を一度しか送らないため、" +
    "それらのメッセージは失われます。下の障害時モードが関わるのは、両方が同時に停止している間だけです。",
};

/** What each fail mode means for a Chatwork workspace while Redis and PostgreSQL are both down. */
export const chatworkFailModeConsequences: Record<FailMode, Translated> = {
  open: {
    en:
      "If Redis and PostgreSQL are both down, the instance that receives a message answers it on its own. Nothing is " +
      "lost to the outage, but a message that arrives through both an account webhook and a room webhook may reach " +
      "two instances and be answered twice, and an answer still being written when its instance stops is lost. " +
      "Recommended for Chatwork (the default).",
    ja:
      "Redis と PostgreSQL の両方が停止している間は、メッセージを受け取ったインスタンスが単独で返信します。停止に" +
      "よってメッセージを取りこぼすことはありませんが、アカウントの Webhook とルームの Webhook の両方から届いた" +
      "メッセージが 2 つのインスタンスに届くと、二重に返信することがあります。また、返信の作成中にそのインスタンスが" +
      "止まると、その返信は失われます。Chatwork ではこちらをおすすめします（既定）。",
  },
  closed: {
    en:
      "If Redis and PostgreSQL are both down, messages are refused (HTTP 503). Chatwork never resends a webhook, so " +
      "every message sent to the bot during the outage is lost: it is never answered, and nobody is told. Nothing " +
      "is ever answered twice.",
    ja:
      "Redis と PostgreSQL の両方が停止している間はメッセージを拒否します（HTTP 503）。Chatwork は Webhook を" +
      "再送しないため、停止中にボットへ送られたメッセージはすべて失われます。返信されることはなく、誰にも通知" +
      "されません。二重に返信することはありません。",
  },
};
