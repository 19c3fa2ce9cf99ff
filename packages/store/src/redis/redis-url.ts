/**
 * Where REDIS_URL points:
 * - `redis://[user:pass@]host:port[/db]` or `rediss://…` (TLS): one server, read by ioredis itself;
 * - `redis+cluster://[user:pass@]host1:port1,host2:port2,…` or `rediss+cluster://…`: a Redis Cluster, given by
 *   a few of its nodes (the client discovers the rest). A URL has room for one host only, hence the list form.
 */
export type RedisTarget =
  | { kind: "standalone"; url: string }
  | {
      kind: "cluster";
      nodes: { host: string; port: number }[];
      username?: string;
      password?: string;
      tls: boolean;
    };

const clusterUrl = /^(rediss?)\+cluster:\/\/(?:([^@/]*)@)?([^/?#]+)\/?$/;

export function parseRedisUrl(url: string): RedisTarget {
  const cluster = clusterUrl.exec(url);
  if (!cluster) {
    if (!/^rediss?:\/\//.test(url)) throw new Error(`not a redis URL: ${url.replace(/\/\/[^@]*@/, "//***@")}`);
    return { kind: "standalone", url };
  }
  const [, scheme, credentials, hosts] = cluster as unknown as [string, string, string | undefined, string];
  const nodes = hosts.split(",").map((address) => {
    const at = address.lastIndexOf(":");
    const port = Number(address.slice(at + 1));
    if (at <= 0 || !Number.isInteger(port)) throw new Error(`bad cluster node "${address}" in REDIS_URL`);
    return { host: address.slice(0, at), port };
  });
  const [username, password] = credentials === undefined ? [] : splitCredentials(credentials);
  return { kind: "cluster", nodes, username, password, tls: scheme === "rediss" };
}

function splitCredentials(credentials: string): [string | undefined, string | undefined] {
  const colon = credentials.indexOf(":");
  if (colon < 0) return [decodeURIComponent(credentials) || undefined, undefined];
  return [
    decodeURIComponent(credentials.slice(0, colon)) || undefined,
    decodeURIComponent(credentials.slice(colon + 1)) || undefined,
  ];
}
