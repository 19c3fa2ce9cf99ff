import type { Platform } from "./chat-event.ts";
import type { Ingress } from "./ingest.ts";
import type { IngestResponse } from "./ingest-response.ts";
import type { InboundRequest } from "./ports/platform-adapter.ts";
import type {
  ConnectionState,
  ReceiverCatalog,
  ReceiverConnection,
  ReceiverDescriptor,
  ReceiverTarget,
} from "./ports/receiver.ts";
import type { ReceiverSlots } from "./ports/receiver-slots.ts";
import type { Logger } from "./ports/telemetry.ts";

export interface ReceiverPoolDeps {
  instanceId: string;
  slots: ReceiverSlots;
  catalog: ReceiverCatalog;
  receivers: ReadonlyMap<Platform, ReceiverDescriptor>;
  /** The ingest pipeline (Ingest.handle). */
  deliver(platform: Platform, workspaceId: string, request: InboundRequest, via: Ingress): Promise<IngestResponse>;
  logger: Logger;
  /** How long a slot stays held without renewal: how soon a dead instance's connections are taken over. */
  leaseMs: number;
  now?: () => number;
}

interface Holding {
  platform: Platform;
  workspaceId: string;
  slot: number;
  token: string;
  /** The credentials it was opened with: a change re-opens it. */
  credentials: string;
  connection: ReceiverConnection;
  state: ConnectionState;
  /** When the last successful renewal was sent, by our clock. */
  renewedAt: number;
}

/**
 * Keeps every receiver workspace's connections open across the cluster, each connection a leased slot in the
 * shared store (ReceiverSlots). A workspace wants one connection per live instance — at least two, at most its
 * platform's limit — and each instance holds at most its share (target / instances, rounded up), so the
 * connections spread and one instance's death leaves the others' open. A slot whose lease lapses is taken by
 * whoever has room; a slot above the target or the share is given back. Runs every quarter of a lease.
 *
 * A renewal that cannot reach the store keeps the connection while, by our clock, the lease still holds for
 * sure (two thirds of it from the last renewal sent); after that it is closed, so no slot is ever open twice for
 * long, and the platform's limit holds.
 */
export class ReceiverPool {
  private readonly holdings = new Map<string, Holding>();
  private readonly now: () => number;
  private timer: NodeJS.Timeout | undefined;
  private ticking: Promise<void> = Promise.resolve();
  private closed = false;

  constructor(private readonly deps: ReceiverPoolDeps) {
    this.now = deps.now ?? (() => performance.now());
  }

  start(): void {
    if (this.deps.receivers.size === 0) return;
    const loop = () => {
      this.ticking = this.tick()
        .catch((err) => this.deps.logger.warn({ err }, "receiver pool tick failed"))
        .finally(() => {
          if (!this.closed) this.timer = setTimeout(loop, this.deps.leaseMs / 4);
        });
    };
    loop();
  }

  /** Closes this instance's connections and gives their slots back, so other instances take them over at once. */
  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.timer);
    await this.ticking;
    await Promise.all([...this.holdings.values()].map((holding) => this.drop(holding, true, "closing")));
    await this.deps.slots.leave(this.deps.instanceId).catch(() => {});
  }

  /** The slots this instance holds now, for logs and tests. */
  get held(): { workspaceId: string; slot: number; state: ConnectionState }[] {
    return [...this.holdings.values()].map(({ workspaceId, slot, state }) => ({ workspaceId, slot, state }));
  }

  async tick(): Promise<void> {
    const { slots, instanceId, leaseMs } = this.deps;
    let live: number;
    let wanted: Map<string, { platform: Platform; receiver: ReceiverDescriptor; workspace: ReceiverTarget }>;
    try {
      live = await slots.heartbeat(instanceId, leaseMs);
      wanted = await this.wanted();
    } catch (err) {
      this.deps.logger.warn({ err }, "receiver slots unreachable: keeping connections while their leases hold");
      await this.dropLapsing();
      return;
    }
    for (const holding of this.holdings.values()) {
      const w = wanted.get(holding.workspaceId);
      if (!w) await this.drop(holding, true, "the workspace no longer takes deliveries over connections");
      else if (JSON.stringify(w.workspace.credentials) !== holding.credentials) {
        await this.drop(holding, true, "its credentials changed");
      }
    }
    for (const { platform, receiver, workspace } of wanted.values()) {
      if (this.closed) return;
      const target = Math.min(receiver.maxConnections, Math.max(2, live));
      const share = Math.ceil(target / Math.max(1, live));
      await this.renewAll(workspace.id);
      const mine = this.mine(workspace.id);
      const excess = mine.filter((h) => h.slot >= target);
      const within = mine.filter((h) => h.slot < target);
      excess.push(...within.slice(share));
      for (const holding of excess) await this.drop(holding, true, `above the target ${target} or the share ${share}`);
      let count = Math.min(within.length, share);
      for (let slot = 0; slot < target && count < share && !this.closed; slot++) {
        if (this.holdings.has(key(workspace.id, slot))) continue;
        const token = await slots.take(workspace.id, slot, instanceId, leaseMs);
        if (!token) continue;
        this.open(platform, receiver, workspace, slot, token, target, share);
        count++;
      }
    }
  }

  private async wanted() {
    const wanted = new Map<string, { platform: Platform; receiver: ReceiverDescriptor; workspace: ReceiverTarget }>();
    for (const [platform, receiver] of this.deps.receivers) {
      for (const workspace of await this.deps.catalog.withCredential(platform, receiver.credentialField)) {
        wanted.set(workspace.id, { platform, receiver, workspace });
      }
    }
    return wanted;
  }

  private mine(workspaceId: string): Holding[] {
    return [...this.holdings.values()].filter((h) => h.workspaceId === workspaceId).sort((a, b) => a.slot - b.slot);
  }

  private async renewAll(workspaceId: string): Promise<void> {
    for (const holding of this.mine(workspaceId)) await this.renew(holding);
  }

  private async renew(holding: Holding): Promise<void> {
    const sentAt = this.now();
    const { workspaceId, slot, token, state } = holding;
    const held = await this.deps.slots.renew(workspaceId, slot, token, state, this.deps.leaseMs).catch(() => undefined);
    if (held === true) holding.renewedAt = Math.max(holding.renewedAt, sentAt);
    else if (held === false) await this.drop(holding, false, "its lease was lost");
    else if (this.lapsing(holding)) await this.drop(holding, false, "its lease could not be renewed in time");
  }

  private lapsing(holding: Holding): boolean {
    return this.now() - holding.renewedAt >= (this.deps.leaseMs * 2) / 3;
  }

  private async dropLapsing(): Promise<void> {
    for (const holding of [...this.holdings.values()]) {
      if (this.lapsing(holding)) await this.drop(holding, false, "its lease could not be renewed in time");
    }
  }

  private open(
    platform: Platform,
    receiver: ReceiverDescriptor,
    workspace: ReceiverTarget,
    slot: number,
    token: string,
    target: number,
    share: number,
  ): void {
    const holding: Holding = {
      platform,
      workspaceId: workspace.id,
      slot,
      token,
      credentials: JSON.stringify(workspace.credentials),
      state: "connecting",
      renewedAt: this.now(),
      connection: { close: async () => {} },
    };
    this.holdings.set(key(workspace.id, slot), holding);
    holding.connection = receiver.open(workspace, {
      deliver: (request) => this.deps.deliver(platform, workspace.id, request, "connection"),
      onState: (state) => {
        if (holding.state === state) return;
        holding.state = state;
        // Said at once, so the console does not wait for the next tick.
        if (this.holdings.get(key(workspace.id, slot)) === holding) void this.renew(holding);
      },
    });
    this.deps.logger.info({ workspaceId: workspace.id, slot, target, share }, "receiver connection taken");
  }

  private async drop(holding: Holding, release: boolean, why: string): Promise<void> {
    const k = key(holding.workspaceId, holding.slot);
    if (this.holdings.get(k) !== holding) return;
    this.holdings.delete(k);
    await holding.connection.close().catch(() => {});
    if (release) {
      await this.deps.slots.release(holding.workspaceId, holding.slot, holding.token).catch(() => {});
    }
    this.deps.logger.info(
      { workspaceId: holding.workspaceId, slot: holding.slot, why },
      "receiver connection given up",
    );
  }
}

function key(workspaceId: string, slot: number): string {
  return `${workspaceId}:${slot}`;
}
