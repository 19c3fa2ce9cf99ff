import type { IngestResponse } from "../ingest-response.ts";
import type { InboundRequest } from "./platform-adapter.ts";
import type { Workspace } from "./tenant-directory.ts";

/** Where a connection stands, as the console shows it. */
export type ConnectionState = "connecting" | "open";

/** Hands one delivery that arrived over a connection to the ingest pipeline; acknowledge it only on a 2xx–4xx. */
export type ConnectionDelivery = (request: InboundRequest) => Promise<IngestResponse>;

export interface ReceiverHooks {
  deliver: ConnectionDelivery;
  /** The connection's state changed (it opened, or it is re-opening after a disconnect or an error). */
  onState(state: ConnectionState): void;
}

/** One connection a platform keeps open to us; it re-opens itself after the platform closes it, until `close`. */
export interface ReceiverConnection {
  close(): Promise<void>;
}

/**
 * What a receiver opens connections for: a workspace whose credentials carry the receiver's field, or a distributed
 * app taking the deliveries of all its installations (its id then names the app, not a workspace).
 */
export type ReceiverTarget<C = unknown> = Pick<Workspace<C>, "id" | "credentials">;

/**
 * A platform that also delivers over connections we open to it (a WebSocket the platform pushes into), apart from processing: as in
 * bolt-js, a receiver only brings deliveries in, and they enter the same verify-less gate, ledger and ack rule as
 * a webhook's. A workspace takes deliveries over connections when its credentials carry `credentialField`.
 */
export interface ReceiverDescriptor<C = unknown> {
  /** The credential field that turns connections on (an app-level token, say). */
  credentialField: string;
  /** The platform's limit of open connections per workspace's app. */
  maxConnections: number;
  open(target: ReceiverTarget<C>, hooks: ReceiverHooks): ReceiverConnection;
}

/** Finds the workspaces that take deliveries over connections. Read afresh each time: nothing is cached. */
export interface ReceiverCatalog {
  /** The workspaces (or apps) of `platform` whose credentials carry `credentialField`, decrypted. */
  withCredential(platform: string, credentialField: string): Promise<ReceiverTarget[]>;
}
