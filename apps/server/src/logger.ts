import { isSpanContextValid, trace } from "@opentelemetry/api";
import type { PlatformDescriptor } from "@resident/core";
import pino, { type DestinationStream, type Logger, type LoggerOptions } from "pino";
import { platforms } from "./platforms.ts";

/*
 * Secrets must never reach a log line. Credentials travel under a handful of names, each platform's own besides
 * these; errors thrown by HTTP clients (the platforms' SDKs, Anthropic's) can carry the request they made, headers
 * included.
 */
const secretFields = ["credentials", "token", "password", "secret", "authorization", "authHeader"];
const secretHeaders = ["authorization", "cookie", "x-api-key"];

function redactPaths(descriptors: readonly PlatformDescriptor[]): string[] {
  const fields = new Set([...secretFields, ...descriptors.flatMap((d) => d.secrets.fields)]);
  const headers = new Set([...secretHeaders, ...descriptors.flatMap((d) => d.secrets.headers)]);
  return [
    ...[...fields].flatMap((field) => [field, `*.${field}`, `*.*.${field}`]),
    ...[...headers].map((header) => `req.headers['${header}']`),
    "*.headers",
    "*.config",
    "*.request",
    "*.response",
  ];
}

interface LoggedRequest {
  method: string;
  url: string;
  host?: string;
  ip?: string;
  socket?: { remotePort?: number };
}

/**
 * Fastify's request serializer without the query string: a client may put a token there (`?token=…`), and no
 * route of ours needs its query logged. `remoteAddress` is the client address as TRUSTED_PROXIES allows it.
 */
function requestWithoutQuery(request: LoggedRequest) {
  return {
    method: request.method,
    url: request.url.split("?", 1)[0],
    host: request.host,
    remoteAddress: request.ip,
    remotePort: request.socket?.remotePort,
  };
}

export function loggerOptions(
  level: string,
  instanceId: string,
  descriptors: readonly PlatformDescriptor[] = platforms,
): LoggerOptions {
  return {
    level,
    base: { instance: instanceId },
    redact: { paths: redactPaths(descriptors), censor: "[redacted]" },
    mixin: traceIds,
    serializers: { req: requestWithoutQuery },
  };
}

/** A line written inside a span names its trace, so the logs of one message can be found next to its trace. */
function traceIds(): object {
  const span = trace.getActiveSpan()?.spanContext();
  return span && isSpanContextValid(span) ? { trace_id: span.traceId, span_id: span.spanId } : {};
}

export function createLogger(
  level: string,
  instanceId: string,
  destination?: DestinationStream,
  descriptors: readonly PlatformDescriptor[] = platforms,
): Logger {
  return pino(loggerOptions(level, instanceId, descriptors), destination);
}
