import { FakeServer } from "../fake-server.ts";

export type AttributeValue = string | number | boolean | AttributeValue[];

/** One span as an OTLP/HTTP JSON export carries it, flattened: attributes as a plain object, its resource beside it. */
export interface ExportedSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  /** OTLP's SpanKind number: 1 internal, 2 server, 3 client, 4 producer, 5 consumer. */
  kind: number;
  attributes: Record<string, AttributeValue>;
  events: { name: string; attributes: Record<string, AttributeValue> }[];
  status?: { code?: number; message?: string };
  /** The exporting process's resource attributes (service.name, service.instance.id, …). */
  resource: Record<string, AttributeValue>;
}

interface OtlpValue {
  stringValue?: string;
  boolValue?: boolean;
  intValue?: number | string;
  doubleValue?: number;
  arrayValue?: { values?: OtlpValue[] };
}
type OtlpAttributes = { key: string; value: OtlpValue }[] | undefined;
interface OtlpSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: number;
  attributes?: OtlpAttributes;
  events?: { name: string; attributes?: OtlpAttributes }[];
  status?: { code?: number; message?: string };
}
interface ExportTraceServiceRequest {
  resourceSpans?: { resource?: { attributes?: OtlpAttributes }; scopeSpans?: { spans?: OtlpSpan[] }[] }[];
}

/**
 * An OpenTelemetry collector's trace receiver (`POST /v1/traces`, OTLP/HTTP JSON, which the OTLP HTTP exporter sends)
 * on a real HTTP server, recording every span. Point an instance at it with OTEL_EXPORTER_OTLP_ENDPOINT = `url`.
 */
export class FakeOtlp {
  readonly server = new FakeServer({
    "POST /v1/traces": (call) => {
      if (!String(call.headers["content-type"]).includes("application/json")) {
        return { status: 415, body: { message: "this receiver decodes OTLP/HTTP JSON only" } };
      }
      this.exported.push(...flatten(call.body as ExportTraceServiceRequest));
      return { status: 200, body: {} };
    },
  });
  private readonly exported: ExportedSpan[] = [];

  async start(): Promise<this> {
    await this.server.start();
    return this;
  }

  get url(): string {
    return this.server.url;
  }

  /** Every span received so far, in the order they arrived. */
  spans(): ExportedSpan[] {
    return [...this.exported];
  }

  /** The export requests exactly as they arrived, to search for what no span may carry. */
  rawBodies(): string[] {
    return this.server.callsTo("POST /v1/traces").map((call) => call.rawBody);
  }

  close(): Promise<void> {
    return this.server.close();
  }
}

function flatten(request: ExportTraceServiceRequest): ExportedSpan[] {
  return (request.resourceSpans ?? []).flatMap(({ resource, scopeSpans }) =>
    (scopeSpans ?? []).flatMap(({ spans }) =>
      (spans ?? []).map((span) => ({
        traceId: span.traceId,
        spanId: span.spanId,
        parentSpanId: span.parentSpanId || undefined,
        name: span.name,
        kind: span.kind,
        attributes: attributes(span.attributes),
        events: (span.events ?? []).map((event) => ({ name: event.name, attributes: attributes(event.attributes) })),
        status: span.status,
        resource: attributes(resource?.attributes),
      })),
    ),
  );
}

function attributes(list: OtlpAttributes): Record<string, AttributeValue> {
  return Object.fromEntries((list ?? []).map(({ key, value }) => [key, decode(value)]));
}

function decode(value: OtlpValue): AttributeValue {
  if (value.stringValue !== undefined) return value.stringValue;
  if (value.boolValue !== undefined) return value.boolValue;
  if (value.intValue !== undefined) return Number(value.intValue);
  if (value.doubleValue !== undefined) return value.doubleValue;
  return (value.arrayValue?.values ?? []).map(decode);
}
