import { OTLPTraceExporter } from "@opentelemetry/exporter-trace-otlp-http";
import { detectResources, envDetector, resourceFromAttributes } from "@opentelemetry/resources";
import { BatchSpanProcessor, NodeTracerProvider } from "@opentelemetry/sdk-trace-node";
import { ATTR_SERVICE_INSTANCE_ID, ATTR_SERVICE_NAME } from "@opentelemetry/semantic-conventions";
import type { Config } from "./config.ts";

export interface Tracing {
  /** Exports the spans still buffered, then stops. */
  close(): Promise<void>;
}

/**
 * Registers the OpenTelemetry SDK when an OTLP endpoint is configured; without one nothing is started and the
 * pipeline's spans stay the API's no-ops. The exporter reads the standard OTEL_EXPORTER_OTLP_* variables itself
 * (endpoint, headers, timeout) and the batch processor OTEL_BSP_*; OTEL_SERVICE_NAME and OTEL_RESOURCE_ATTRIBUTES
 * override the resource. No auto-instrumentation: the Redis and HTTP-client ones would record commands and URLs that
 * carry a message's text or a bot token, and the pipeline's own spans name what an operator asks about.
 */
export function startTracing(config: Pick<Config, "otlp" | "instanceId" | "role">): Tracing | undefined {
  if (!config.otlp) return undefined;
  const provider = new NodeTracerProvider({
    resource: resourceFromAttributes({
      [ATTR_SERVICE_NAME]: "resident",
      [ATTR_SERVICE_INSTANCE_ID]: config.instanceId,
      "resident.role": config.role,
    }).merge(detectResources({ detectors: [envDetector] })),
    spanProcessors: [new BatchSpanProcessor(new OTLPTraceExporter())],
  });
  provider.register();
  return { close: () => provider.shutdown() };
}
