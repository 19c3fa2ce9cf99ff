import { describe, expect, it } from "vitest";
import { parseRedisUrl } from "../src/index.ts";

describe("parseRedisUrl", () => {
  it("leaves a single server's URL to ioredis", () => {
    expect(parseRedisUrl("redis://:secret@cache:6380/2")).toEqual({
      kind: "standalone",
      url: "redis://:secret@cache:6380/2",
    });
    expect(parseRedisUrl("rediss://cache")).toEqual({ kind: "standalone", url: "rediss://cache" });
  });

  it("reads a cluster's nodes, credentials and TLS from the list form", () => {
    expect(parseRedisUrl("rediss+cluster://app:p%40ss@10.0.0.1:7000,10.0.0.2:7001/")).toEqual({
      kind: "cluster",
      nodes: [
        { host: "10.0.0.1", port: 7000 },
        { host: "10.0.0.2", port: 7001 },
      ],
      username: "app",
      password: "p@ss",
      tls: true,
    });
    expect(parseRedisUrl("redis+cluster://a:1")).toEqual({
      kind: "cluster",
      nodes: [{ host: "a", port: 1 }],
      username: undefined,
      password: undefined,
      tls: false,
    });
  });

  it("refuses what it cannot read, without echoing credentials", () => {
    expect(() => parseRedisUrl("redis+cluster://a:1,b")).toThrow(/bad cluster node "b"/);
    expect(() => parseRedisUrl("http://user:secret@host")).toThrow(/^not a redis URL: http:\/\/\*\*\*@host$/);
  });
});
