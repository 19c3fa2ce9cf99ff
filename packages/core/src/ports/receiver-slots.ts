import type { ConnectionState } from "./receiver.ts";

/** A connection slot as the shared store holds it. */
export interface HeldSlot {
  workspaceId: string;
  slot: number;
  instanceId: string;
  state: ConnectionState;
  /** When it was taken (ISO 8601). */
  since: string;
}

/**
 * The cluster's leases on receiver connections: per workspace, slots 0…n-1, each held by at most one instance at a
 * time; a slot whose lease lapses (its instance died) is free for anyone. Instances also say they are alive, so each
 * knows how many share the work. Expiry is judged by the store's clock. Rejects with StoreUnavailableError.
 */
export interface ReceiverSlots {
  /** Says `instanceId` is alive for `ttlMs`; resolves to how many instances are alive, this one included. */
  heartbeat(instanceId: string, ttlMs: number): Promise<number>;
  /** Takes a free slot; resolves to the lease's token, or undefined when another instance holds it. */
  take(workspaceId: string, slot: number, instanceId: string, ttlMs: number): Promise<string | undefined>;
  /** Renews the lease and records the state; false when `token` no longer holds the slot. */
  renew(workspaceId: string, slot: number, token: string, state: ConnectionState, ttlMs: number): Promise<boolean>;
  release(workspaceId: string, slot: number, token: string): Promise<void>;
  /** The live slots of one workspace, by slot. */
  held(workspaceId: string): Promise<HeldSlot[]>;
  /** Says `instanceId` is gone, so the others count it out at once. */
  leave(instanceId: string): Promise<void>;
}
