import type { FastifyBaseLogger } from "fastify";
import type { Bindings, ChildLoggerOptions, Level, Logger } from "pino";

/**
 * Fastify's logger of one request, made only when the request writes a line its level lets through. Fastify made a
 * pino child for every request (its bindings serialized, its formatters rebuilt and, for a route with a level of its
 * own, every level method rebuilt), and almost no request writes a line: a webhook's logs at `warn`.
 */
class RequestLogger implements FastifyBaseLogger {
  readonly level: string;
  private made: FastifyBaseLogger | undefined;

  constructor(
    private readonly parent: Logger,
    private readonly bindings: Bindings,
    private readonly options: ChildLoggerOptions,
  ) {
    this.level = options.level ?? parent.level;
  }

  fatal(...line: unknown[]): void {
    this.write("fatal", line);
  }
  error(...line: unknown[]): void {
    this.write("error", line);
  }
  warn(...line: unknown[]): void {
    this.write("warn", line);
  }
  info(...line: unknown[]): void {
    this.write("info", line);
  }
  debug(...line: unknown[]): void {
    this.write("debug", line);
  }
  trace(...line: unknown[]): void {
    this.write("trace", line);
  }
  silent(): void {}

  child(bindings: Bindings, options?: ChildLoggerOptions): FastifyBaseLogger {
    return this.logger().child(bindings, options);
  }

  private write(level: Level, line: unknown[]): void {
    const { values } = this.parent.levels;
    if ((values[level] ?? 0) < (values[this.level] ?? Number.POSITIVE_INFINITY)) return;
    (this.logger()[level] as (...line: unknown[]) => void)(...line);
  }

  private logger(): FastifyBaseLogger {
    this.made ??= this.parent.child(this.bindings, this.options);
    return this.made;
  }
}

/** Fastify's `childLoggerFactory`, over the pino logger the service was built with. */
export const requestLoggers = (logger: FastifyBaseLogger, bindings: Bindings, options: ChildLoggerOptions) =>
  new RequestLogger(logger as Logger, bindings, options);
