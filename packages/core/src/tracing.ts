import { createHash } from "node:crypto";
import {
  type Attributes,
  type Context,
  context,
  INVALID_SPAN_CONTEXT,
  ProxyTracerProvider,
  propagation,
  ROOT_CONTEXT,
  type Span,
  type SpanOptions,
  SpanStatusCode,
  TraceFlags,
  trace,
} from "@opentelemetry/api";
import type { ChatEvent, QueuedEvent } from "./chat-event.ts";

/*
 * The pipeline's spans, written against the OpenTelemetry API only: the API is the package libraries instrument
 * with (no I/O, no exporter), and without an SDK registered every call below is a no-op. apps/server registers the
 * SDK when OTEL_EXPORTER_OTLP_ENDPOINT is set. Attributes name identities (platform, workspace, event id), never a
 * message's text or a credential.
 */

export const tracer = trace.getTracer("resident");

/** The W3C trace context (`traceparent`, `tracestate`) of the span that queued an event, carried inside the job. */
export type TraceCarrier = NonNullable<QueuedEvent["trace"]>;

const provider = trace.getTracerProvider();

/** Whether an SDK is registered: only then is there anything worth computing for a span. */
function tracing(): boolean {
  return !(provider instanceof ProxyTracerProvider) || provider.getDelegateTracer("resident") !== undefined;
}

/**
 * The context every copy of one delivery continues. Platforms send no `traceparent`, so it is derived from the
 * delivery's identity (its event key): the original, each platform retry and a concurrent copy, on whichever
 * instance they land, all join one trace, and the copy the gate suppresses shows in the trace of the one it
 * duplicates. The parent span stands for the platform's delivery and is never exported.
 */
export function deliveryContext(eventKey: string): Context {
  if (!tracing()) return ROOT_CONTEXT;
  const digest = createHash("sha256").update(eventKey).digest("hex");
  return trace.setSpanContext(ROOT_CONTEXT, {
    traceId: digest.slice(0, 32),
    spanId: digest.slice(32, 48),
    traceFlags: TraceFlags.SAMPLED,
    isRemote: true,
  });
}

/** The active span's context, to travel with a queued job; undefined when nothing is traced. */
export function traceCarrier(): TraceCarrier | undefined {
  if (!tracing()) return undefined;
  const carrier: TraceCarrier = {};
  propagation.inject(context.active(), carrier);
  return Object.keys(carrier).length > 0 ? carrier : undefined;
}

/** The context a job's worker continues: the span that queued it. */
export function continuedContext(carrier: TraceCarrier | undefined): Context {
  return carrier ? propagation.extract(ROOT_CONTEXT, carrier) : ROOT_CONTEXT;
}

/** What every span of an event says about it: identities only. */
export function eventAttributes(event: ChatEvent | QueuedEvent): Attributes {
  return {
    "resident.platform": event.platform,
    "resident.tenant_id": event.tenantId,
    "resident.workspace_id": event.workspaceId,
    "resident.event_id": event.eventId,
  };
}

/** What `inSpan` hands its work while nothing is traced: a span that records nothing, as the API's no-op spans. */
const untraced = trace.wrapSpanContext(INVALID_SPAN_CONTEXT);

/**
 * Runs `work` in a span that is active for everything it calls, ended when it settles. A failure marks the span
 * with its error's class name only: messages can quote what a platform or the LLM said. While nothing is traced,
 * `work` runs as it is: the no-op span, its context and the wrapping promise would be built for nothing on every
 * delivery and answer.
 */
export function inSpan<T>(
  name: string,
  options: SpanOptions,
  work: (span: Span) => Promise<T>,
  parent?: Context,
): Promise<T> {
  if (!tracing()) return work(untraced);
  return tracer.startActiveSpan(name, options, parent ?? context.active(), async (span) => {
    try {
      return await work(span);
    } catch (error) {
      span.setStatus({ code: SpanStatusCode.ERROR, message: error instanceof Error ? error.name : "error" });
      throw error;
    } finally {
      span.end();
    }
  });
}
