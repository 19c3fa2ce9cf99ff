import type {
  AppDistribution,
  Ingest,
  Platform,
  ReceiverCatalog,
  ReceiverPoolDeps,
  ReceiverTarget,
} from "@resident/core";

/** A distributed app's connections are held under this id: counted for the app as a whole, never per workspace. */
export const appTargetId = (platform: Platform) => `app_${platform}`;

/**
 * The receivers' catalog and delivery, with the distributed apps added: an app whose deliveries also come over
 * connections (its `receiverCredentials`) is one more target beside the workspaces — at most its platform's limit
 * of connections, spread over the cluster like a workspace's — and what arrives over them is routed by installation,
 * as at the app's one URL.
 */
export function withAppReceivers(
  catalog: ReceiverCatalog,
  distributions: ReadonlyMap<Platform, AppDistribution>,
  ingest: Ingest,
): Pick<ReceiverPoolDeps, "catalog" | "deliver"> {
  const apps = new Map<string, { platform: Platform; distribution: AppDistribution; target: ReceiverTarget }>();
  for (const [platform, distribution] of distributions) {
    const credentials = distribution.receiverCredentials;
    const id = appTargetId(platform);
    if (credentials) apps.set(id, { platform, distribution, target: { id, credentials } });
  }
  return {
    catalog: {
      async withCredential(platform, credentialField) {
        const workspaces = await catalog.withCredential(platform, credentialField);
        const own = [...apps.values()].filter(
          (app) => app.platform === platform && Object.hasOwn(app.target.credentials as object, credentialField),
        );
        return [...workspaces, ...own.map((app) => app.target)];
      },
    },
    deliver(platform, id, request, via) {
      const app = apps.get(id);
      return app
        ? ingest.handleApp(platform, app.distribution, request, "connection")
        : ingest.handle(platform, id, request, via);
    },
  };
}
