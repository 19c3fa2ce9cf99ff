import type { FakeResponse, RecordedCall, RouteHandler } from "../fake-server.ts";

export type PatternHandler = (
  call: RecordedCall,
  params: Record<string, string>,
) => FakeResponse | Promise<FakeResponse>;

/**
 * FakeServer looks a handler up by the call's exact "METHOD /path". This table answers that lookup by pattern
 * ("POST /v3/conversations/:conversationId/activities"), so a fake gets path parameters (decoded) without a change
 * to FakeServer. Faults stay keyed by the concrete route, as FakeServer keeps them.
 */
export function patternRoutes(patterns: Record<string, PatternHandler>): Record<string, RouteHandler> {
  const table = Object.entries(patterns).map(([pattern, handler]) => ({ match: compile(pattern), handler }));
  return new Proxy<Record<string, RouteHandler>>(
    {},
    {
      get(_target, route) {
        if (typeof route !== "string") return undefined;
        for (const { match, handler } of table) {
          const params = match(route);
          if (params) return (call: RecordedCall) => handler(call, params);
        }
        return undefined;
      },
    },
  );
}

function compile(pattern: string): (route: string) => Record<string, string> | undefined {
  const names: string[] = [];
  const source = pattern
    .split("/")
    .map((segment) => {
      if (!segment.startsWith(":")) return segment.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
      names.push(segment.slice(1));
      return "([^/]+)";
    })
    .join("/");
  const regex = new RegExp(`^${source}$`);
  return (route) => {
    const match = regex.exec(route);
    if (!match) return undefined;
    return Object.fromEntries(names.map((name, i) => [name, decodeURIComponent(match[i + 1] ?? "")]));
  };
}
