import type {
  AppDistribution,
  DistributionContext,
  Platform,
  PlatformAdapter,
  PlatformContext,
  PlatformDescriptor,
  ReceiverDescriptor,
} from "@resident/core";

/** The service's platforms, each with its adapter, looked up by id. */
export class PlatformSet {
  readonly descriptors: readonly PlatformDescriptor[];
  readonly adapters: ReadonlyMap<Platform, PlatformAdapter>;
  /** The platforms that can also deliver over connections we open (receivers). */
  readonly receivers: ReadonlyMap<Platform, ReceiverDescriptor>;
  private readonly byId: ReadonlyMap<Platform, PlatformDescriptor>;
  private readonly context: PlatformContext;

  constructor(descriptors: readonly PlatformDescriptor[], context: PlatformContext) {
    this.context = context;
    const ids = descriptors.map((d) => d.id);
    const paths = descriptors.flatMap((d) =>
      d.interactionPath ? [d.webhookPath, d.interactionPath] : [d.webhookPath],
    );
    if (new Set(ids).size !== ids.length || new Set(paths).size !== paths.length) {
      throw new Error(`two platforms share an id or a webhook path: ${ids.join(", ")}`);
    }
    this.descriptors = descriptors;
    this.byId = new Map(descriptors.map((d) => [d.id, d]));
    this.adapters = new Map(descriptors.map((d) => [d.id, d.createAdapter(context)]));
    this.receivers = new Map(
      descriptors.flatMap((d) => (d.createReceiver ? [[d.id, d.createReceiver(context)] as const] : [])),
    );
  }

  /**
   * The operator's apps installed into many workspaces, of the platforms that have them and whose environment
   * configures one; built once the tenants' database (where installations are kept) is open.
   */
  distributions(context: Omit<DistributionContext, keyof PlatformContext>): ReadonlyMap<Platform, AppDistribution> {
    return new Map(
      this.descriptors.flatMap((d) => {
        const distribution = d.createDistribution?.({ ...this.context, ...context });
        return distribution ? [[d.id, distribution] as const] : [];
      }),
    );
  }

  get ids(): Platform[] {
    return [...this.byId.keys()];
  }

  descriptor(id: Platform): PlatformDescriptor | undefined {
    return this.byId.get(id);
  }

  /** Where a workspace's platform delivers (DESIGN.md, "The outside contract"). */
  webhookPath(id: Platform, workspaceId: string): string {
    return `${this.byId.get(id)?.webhookPath ?? `/${id}`}/${workspaceId}`;
  }

  /** Where a workspace's platform delivers interactions (clicks on our messages' buttons), if apart from its webhook. */
  interactionPath(id: Platform, workspaceId: string): string | undefined {
    const path = this.byId.get(id)?.interactionPath;
    return path && `${path}/${workspaceId}`;
  }
}
