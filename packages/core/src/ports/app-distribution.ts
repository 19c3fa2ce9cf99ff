import type { IncomingMessage, ServerResponse } from "node:http";
import type { Platform } from "../chat-event.ts";
import type { InboundRequest } from "./platform-adapter.ts";
import type { BotIdentity } from "./tenant-directory.ts";

/** Who began an install in the console: a tenant, and its admin token (absent: the operator began it). */
export interface InstallBinding {
  tenantId: string;
  tokenId?: string;
}

/** An installation the platform has just granted, to be kept as a workspace of the tenant that began it. */
export interface NewInstallation {
  platform: Platform;
  binding: InstallBinding;
  /** What the app's deliveries name it by: "team:T…", or "enterprise:E…" for an org-wide install. */
  key: string;
  name: string;
  /** Sealed like any workspace's credentials: the installation's tokens. */
  credentials: Record<string, unknown>;
  identity: BotIdentity;
}

/**
 * Where installations of the operator's apps are kept (the tenants' database), for the install flow and for the
 * pipeline that routes the app's deliveries.
 */
export interface AppInstallations {
  /** Records an install begun by `binding` and answers its state: random, taken once, worthless after `ttlMs`. */
  beginInstall(platform: Platform, binding: InstallBinding, ttlMs: number): Promise<string>;
  /**
   * Takes the state back, once: the binding it was begun with, or undefined when it is unknown, expired, already
   * taken, or its admin token has been revoked since.
   */
  takeInstall(platform: Platform, state: string): Promise<InstallBinding | undefined>;
  /** The tenant's workspace for this installation: created, or updated (and enabled again) when installed before. */
  install(installation: NewInstallation): Promise<{ workspaceId: string; tenantId: string }>;
  /** The workspace of the first of `keys` that is installed; undefined when none is. */
  workspaceFor(platform: Platform, keys: readonly string[]): Promise<string | undefined>;
  /** The platform took the workspace's access away: it answers nothing until installed again. Idempotent. */
  disable(workspaceId: string, reason: string): Promise<void>;
}

/** Where a delivery at the app's one URL goes: to the installation it names, or answered at once (a handshake). */
export type AppDelivery =
  | { kind: "installation"; keys: readonly string[] }
  | { kind: "respond"; status: number; body: unknown };

/** What the install flow ended with, for the browser that came back from the platform. */
export type InstallOutcome =
  | { ok: true; tenantId: string; workspaceId: string }
  | { ok: false; reason: string; tenantId?: string };

/**
 * One app of the operator's, installed by many tenants' admins, every installation's deliveries arriving at one URL
 * signed with the app's own secret (a distributed app: an "Add to …" button, one request URL). A platform descriptor
 * builds it when the operator configured such an app.
 */
export interface AppDistribution {
  /** The app's one URL for deliveries, e.g. "/x/events" (a workspace's own webhooks are "/x/events/:workspaceId"). */
  eventsPath: string;
  /** Checks the delivery came from the platform for this app. Throws VerificationError. */
  verify(request: InboundRequest, now: number): void;
  /** Which installation a verified delivery is for. Throws MalformedPayloadError. */
  route(request: InboundRequest): AppDelivery;
  /**
   * Present when the app also takes its deliveries over connections the cluster opens (the platform's receiver):
   * the credentials its connections are opened with, one set for the whole app, however many installations.
   */
  receiverCredentials?: Record<string, unknown>;
  /** Where the platform sends the admin's browser back to. */
  callbackPath: string;
  /** The platform's authorize URL for an install by `binding`, and the cookie that ties it to the admin's browser. */
  beginInstall(binding: InstallBinding): Promise<{ url: string; setCookie: string }>;
  /**
   * Completes the install the platform's redirect carries: checks its state (cookie and store), exchanges the code,
   * keeps the installation. Nothing is kept and the code is not exchanged when the state does not hold. May set
   * headers on `res` (the state cookie's removal); the caller writes the answer.
   */
  completeInstall(req: IncomingMessage, res: ServerResponse): Promise<InstallOutcome>;
}
