import { Writable } from "node:stream";
import { ROOT_CONTEXT, trace } from "@opentelemetry/api";
import { InMemorySpanExporter, NodeTracerProvider, SimpleSpanProcessor } from "@opentelemetry/sdk-trace-node";
import { deliveryContext, inSpan, traceCarrier } from "@resident/core";
import { expect, it } from "vitest";
import { createLogger } from "../src/logger.ts";
import { startTracing } from "../src/tracing.ts";

/* Tracing's two modes in one process: first off (no endpoint, nothing registered), then on with an in-memory SDK. */

function capture() {
  const lines: Record<string, unknown>[] = [];
  const stream = new Writable({
    write(chunk, _encoding, done) {
      lines.push(JSON.parse(String(chunk)));
      done();
    },
  });
  return { lines, logger: createLogger("info", "test", stream) };
}

it("starts nothing without an OTLP endpoint: spans are the API's no-ops and a queued job carries no trace", async () => {
  expect(startTracing({ otlp: false, instanceId: "test", role: "all" })).toBeUndefined();
  expect(deliveryContext("event:slack:W1:Ev1")).toBe(ROOT_CONTEXT);
  const { lines, logger } = capture();
  await inSpan("ingest slack", {}, async (span) => {
    expect(span.isRecording()).toBe(false);
    expect(traceCarrier()).toBeUndefined();
    logger.info({}, "inside a span");
  });
  expect(lines[0]).not.toHaveProperty("trace_id");
});

it("derives one trace per delivery identity, carries it into the job, and names it in every log line written in a span", async () => {
  const exporter = new InMemorySpanExporter();
  const provider = new NodeTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
  provider.register();
  try {
    const { lines, logger } = capture();
    const first = deliveryContext("event:slack:W1:Ev1");
    expect(trace.getSpanContext(deliveryContext("event:slack:W1:Ev1"))).toEqual(trace.getSpanContext(first));
    expect(trace.getSpanContext(deliveryContext("event:slack:W1:Ev2"))?.traceId).not.toBe(
      trace.getSpanContext(first)?.traceId,
    );

    const carrier = await inSpan(
      "enqueue",
      {},
      async (span) => {
        logger.info({}, "inside a span");
        expect(lines[0]).toMatchObject({ trace_id: span.spanContext().traceId, span_id: span.spanContext().spanId });
        return traceCarrier();
      },
      first,
    );
    const [enqueue] = exporter.getFinishedSpans();
    expect(enqueue?.spanContext().traceId).toBe(trace.getSpanContext(first)?.traceId);
    expect(carrier?.traceparent).toBe(`00-${enqueue?.spanContext().traceId}-${enqueue?.spanContext().spanId}-01`);

    logger.info({}, "outside any span");
    expect(lines[1]).not.toHaveProperty("trace_id");
  } finally {
    await provider.shutdown();
  }
});
