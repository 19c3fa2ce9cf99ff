/**
 * The benchmark's floor: the baseline's bare app (bare-app.mjs) plus only the work no ack can skip, each piece the
 * service's own from its build — Slack's signature checked (verifyDelivery), the body parsed, the job built and
 * queued through the one-step admission the service runs on Redis standalone (RedisQueuedAdmission: the gate's
 * record and the job in one script, one call per event-loop turn), on the deployment's own Redis. Nothing of the
 * layers between them: no directory, schema, metric, lane, breaker or span. The ack's ratio beside the floor's says
 * how much of the bar the necessary work leaves on the machine, and what the ack spends beyond it
 * (infra/bench/JOURNAL.md, "The ack's floor"). Run by infra/bench/run.ts behind its own nginx, three of these;
 * `PORT`, `REDIS_URL`, `SIGNING_SECRET`. Its keys are under `floor:` and `{floor}:`, cleared after the ratio's rounds.
 */
import { admissionKey, VerificationError } from "@resident/core";
import { verifyDelivery } from "@resident/slack";
import { RedisQueuedAdmission } from "@resident/store";
import { Redis } from "ioredis";
import { bareApp, serve } from "./bare-app.mjs";

const signingSecret = process.env.SIGNING_SECRET ?? "";
const dayMs = 86_400_000;
const redis = new Redis(process.env.REDIS_URL ?? "");
const queue = { stream: "{floor}:stream", delayed: "{floor}:delayed", mark: (id) => `{floor}:job:${id}` };
const admission = new RedisQueuedAdmission(redis, queue, { prefix: "floor:" });

const app = bareApp(async (request, reply) => {
  try {
    verifyDelivery({ rawBody: request.body, headers: request.headers }, signingSecret, Date.now());
  } catch (error) {
    if (error instanceof VerificationError) return reply.code(401).send({ error: error.message });
    throw error;
  }
  const { event_id: eventId, event } = JSON.parse(request.body.toString("utf8"));
  const { workspaceId } = request.params;
  const messageKey = `${event.channel}:${event.ts}`;
  const job = {
    platform: "slack",
    workspaceId,
    eventId,
    messageKey,
    conversation: { id: event.channel, threadId: event.thread_ts ?? event.ts },
    author: { id: event.user },
    text: event.text,
    receivedAt: Date.now(),
  };
  await admission.admit(admissionKey(job), job, "floor", dayMs);
  return reply.code(200).send({ ok: true });
});
app.addHook("onClose", () => redis.quit());
await serve(app);
