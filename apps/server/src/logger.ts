import { isSpanContextValid, trace } from "@opentelemetry/api";
import pino, { type DestinationStream, type Logger, type LoggerOptions } from "pino";

/*
 * Secrets must never reach a log line. Credentials travel under a handful of names; errors thrown by HTTP clients
 * (axios inside botbuilder, the Slack and Anthropic SDKs) can carry the request they made, headers included.
 */
const secretFields = [
  "credentials",
  "signingSecret",
  "botToken",
  "appPassword",
  "apiToken",
  "webhookToken",
  "webhookTokens",
  "token",
  "password",
  "secret",
  "authorization",
];
const redactPaths = [
  ...secretFields.flatMap((field) => [field, `*.${field}`, `*.*.${field}`]),
  "req.headers.authorization",
  "req.headers.cookie",
  "req.headers['x-chatworktoken']",
  "req.headers['x-api-key']",
  "*.headers",
  "*.config",
  "*.request",
  "*.response",
];

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

export function loggerOptions(level: string, instanceId: string): LoggerOptions {
  return {
    level,
    base: { instance: instanceId },
    redact: { paths: redactPaths, censor: "[redacted]" },
    mixin: traceIds,
    serializers: { req: requestWithoutQuery },
  };
}

/** A line written inside a span names its trace, so the logs of one message can be found next to its trace. */
function traceIds(): object {
  const span = trace.getActiveSpan()?.spanContext();
  return span && isSpanContextValid(span) ? { trace_id: span.traceId, span_id: span.spanId } : {};
}

export function createLogger(level: string, instanceId: string, destination?: DestinationStream): Logger {
  return pino(loggerOptions(level, instanceId), destination);
}
