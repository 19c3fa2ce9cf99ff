import { createHash } from "node:crypto";
import { type ExportedSpan, FakeOtlp } from "@resident/testkit/otlp";
import { appMention } from "@resident/testkit/slack";
import { afterAll, expect, it, vi } from "vitest";
import { report, useDeployment } from "./support/deployment.ts";
import { question, slackAnswerTo, slackPostsFor } from "./support/messages.ts";

/*
 * One trace per message across instances (issue 15): two ROLE=web instances behind nginx take Slack's deliveries,
 * a ROLE=worker instance (not routed to) answers, and all three export their spans over OTLP/HTTP JSON to a fake
 * collector. One message delivered twice — the original and Slack's retry — must come back as one trace holding both
 * ingests (the retry's gate recording the duplicate it suppressed), the worker's answer on the other instance, its LLM
 * call and its send; and no attribute anywhere may carry the message's text or a credential.
 */

const otlp = await new FakeOtlp().start();
afterAll(() => otlp.close());

const web = (i: number) => i < 2;
const d = useDeployment({
  instances: 3,
  platforms: ["slack"],
  env: { OTEL_EXPORTER_OTLP_ENDPOINT: otlp.url, OTEL_BSP_SCHEDULE_DELAY: "100" },
  instanceEnv: (i) => ({ ROLE: web(i) ? "web" : "worker" }),
  behindNginx: web,
});

it("follows one Slack message delivered twice through one trace, from the instance that acked it to the one that answered", async () => {
  const slack = await d().connectSlack();
  const { tag, text } = question("ot");
  const body = appMention(slack.bot, text);
  const original = await slack.send(body);
  const retry = await slack.send(body, { retryNum: 1, retryReason: "http_timeout" });
  expect([original.status, retry.status]).toEqual([200, 200]);
  expect(JSON.parse(String(retry.body))).toMatchObject({ duplicate: true });
  await vi.waitFor(() => expect(slackPostsFor(d(), [tag])).toHaveLength(1), { timeout: 20_000, interval: 50 });

  // The ChatEvent names a Slack delivery `<api_app_id>:<event_id>`.
  const ofEvent = (span: ExportedSpan) => String(span.attributes["resident.event_id"]).endsWith(`:${body.event_id}`);
  let trace: ExportedSpan[] = [];
  await vi.waitFor(
    () => {
      const ingests = otlp.spans().filter((span) => span.name === "ingest slack" && ofEvent(span));
      expect(ingests).toHaveLength(2);
      expect(new Set(ingests.map((span) => span.traceId)).size).toBe(1);
      trace = otlp.spans().filter((span) => span.traceId === ingests[0]?.traceId);
      expect(trace.map((span) => span.name)).toEqual(
        expect.arrayContaining(["verify", "gate", "answer slack", "reply claim", "llm", "send", "commit"]),
      );
    },
    { timeout: 20_000, interval: 50 },
  );

  const one = (name: string) => {
    const found = trace.filter((span) => span.name === name);
    expect(found, name).toHaveLength(1);
    return found[0] as ExportedSpan;
  };
  const byId = new Map(trace.map((span) => [span.spanId, span]));
  const instanceOf = (span: ExportedSpan) => String(span.resource["service.instance.id"]);
  const ingestOf = (span: ExportedSpan) => {
    for (let at: ExportedSpan | undefined = span; at; at = at.parentSpanId ? byId.get(at.parentSpanId) : undefined) {
      if (at.name === "ingest slack") return at;
    }
    throw new Error(`${span.name} is not under an ingest span`);
  };

  // The retry's gate suppressed it and says so; the original's gate claimed it and queued the job in the same step
  // (Redis standalone: one script), so no enqueue span of its own.
  const gates = trace.filter((span) => span.name === "gate");
  const suppressing = gates.filter((gate) => gate.events.some((event) => event.name === "duplicate suppressed"));
  expect(gates.map((gate) => gate.attributes["resident.gate.outcome"]).sort()).toEqual(["claimed", "done"]);
  expect(trace.filter((span) => span.name === "enqueue")).toEqual([]);
  const enqueue = gates.find((gate) => gate.attributes["resident.gate.outcome"] === "claimed") as ExportedSpan;

  // The trace id is the delivery's own, computable from its event key (README, "Tracing").
  const eventKey = `event:${slack.workspaceId}:${ingestOf(enqueue).attributes["resident.event_id"]}`;
  expect(trace[0]?.traceId).toBe(createHash("sha256").update(eventKey).digest("hex").slice(0, 32));

  expect(suppressing).toHaveLength(1);
  expect(suppressing[0]?.events[0]?.attributes).toEqual({ "resident.duplicate.layer": "event" });
  expect(ingestOf(suppressing[0] as ExportedSpan).attributes["resident.platform_retry"]).toBe("http_timeout");

  // The worker continued the trace from the job: its span's parent is the gate's span that queued it, on another
  // instance.
  const answer = one("answer slack");
  expect(answer.parentSpanId).toBe(enqueue.spanId);
  const acked = instanceOf(ingestOf(enqueue));
  const answered = instanceOf(answer);
  expect(["resident-1", "resident-2"]).toContain(acked);
  expect(answered).toBe("resident-3");
  expect(
    d()
      .llm.calls()
      .map((call) => d().instanceOf(call)?.name),
  ).toEqual(["resident-3"]);

  const llm = one("llm");
  const send = one("send");
  expect(llm.parentSpanId).toBe(answer.spanId);
  expect(send.parentSpanId).toBe(answer.spanId);
  expect(llm.attributes).toMatchObject({ "gen_ai.request.model": expect.any(String) });
  expect(Number(llm.attributes["gen_ai.usage.input_tokens"])).toBeGreaterThan(0);
  expect(Number(llm.attributes["gen_ai.usage.output_tokens"])).toBeGreaterThan(0);
  expect(send.attributes["resident.send.status"]).toBe("sent");
  expect(one("reply claim").attributes["resident.reply.outcome"]).toBe("claimed");

  // Nothing exported — span, event, resource — carries the message, the answer, or a credential.
  const exported = otlp.rawBodies().join("\n");
  const answerText = slackAnswerTo(d(), tag);
  for (const secret of [text, tag, answerText, slack.signingSecret, slack.bot.token, d().adminToken]) {
    expect(exported).not.toContain(secret);
  }

  report("tracing", {
    spansInTrace: trace.length,
    names: [...new Set(trace.map((span) => span.name))].join(","),
    ackedBy: acked,
    answeredBy: answered,
    instancesInTrace: [...new Set(trace.map(instanceOf))].sort().join(","),
  });
});
