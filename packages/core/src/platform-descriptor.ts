import type { ZodType } from "zod";
import type { AppDistribution, AppInstallations } from "./ports/app-distribution.ts";
import type { CredentialStore } from "./ports/credential-store.ts";
import type { PlatformAdapter } from "./ports/platform-adapter.ts";
import type { RateLimiter } from "./ports/rate-limiter.ts";
import type { ReceiverDescriptor } from "./ports/receiver.ts";
import type { Logger } from "./ports/telemetry.ts";
import type { FailMode } from "./settings.ts";

/** What a platform's adapter is built from: the process environment (its own variables), a logger, shared limits. */
export interface PlatformContext {
  env: Readonly<Record<string, string | undefined>>;
  logger: Logger;
  /** Cluster-wide sliding windows, for platforms whose limits hold across every instance. */
  limiter: RateLimiter;
  /** The stored credentials, for platforms whose tokens rotate: changed once across the cluster. */
  credentials: CredentialStore;
}

/** What an app distribution is built from: besides the platform's context, where installations are kept. */
export interface DistributionContext extends PlatformContext {
  installations: AppInstallations;
  /** PUBLIC_URL: the platform sends the admin's browser back under it. */
  publicUrl: string;
}

/**
 * A platform as a plugin: everything the service needs to know about it, as data, plus the factory of its adapter.
 * A platform package exports one; the server builds its routes, admin API, log redaction and console from a list of
 * them, and nothing else in the service names a platform.
 */
export interface PlatformDescriptor<C = unknown, Guide extends object = object> {
  /** ChatEvent.platform and the admin API's `platform`: lowercase letters and digits. */
  id: string;
  /** Where the platform delivers, without the workspace id that follows: "/x/events" serves /x/events/:workspaceId. */
  webhookPath: string;
  /**
   * Where the platform delivers interactions apart from its events, if it does (clicks on a message's buttons):
   * "/x/interactivity" serves /x/interactivity/:workspaceId, verified and normalized by the same adapter, with
   * `InboundRequest.endpoint` set to "interactions".
   */
  interactionPath?: string;
  /** Validates the credentials an admin gives for a workspace; its messages never quote a value. */
  credentialsSchema: ZodType<C>;
  /** What must never reach a log line: credential fields and request headers that carry a secret. */
  secrets: { fields: readonly string[]; headers: readonly string[] };
  /** The fail mode a new workspace gets when its admin does not choose one. */
  defaultFailMode: FailMode;
  /**
   * Credential fields, setup steps and fail-mode consequences, for the admin console: @resident/admin-api's
   * PlatformGuide, which the server's list of platforms requires. Core only carries it.
   */
  guide: Guide;
  createAdapter(context: PlatformContext): PlatformAdapter<C>;
  /** Present when the platform can also deliver over connections we open (a receiver: a socket the platform pushes deliveries into). */
  createReceiver?(context: PlatformContext): ReceiverDescriptor<C>;
  /**
   * Present when the platform can serve one app of the operator's installed into many workspaces by their own admins
   * (an "Add to …" button); answers undefined when the environment configures no such app.
   */
  createDistribution?(context: DistributionContext): AppDistribution | undefined;
}

/**
 * Forgets a descriptor's credential type, so descriptors of different platforms share one list. Sound because the
 * service hands an adapter only credentials that its own `credentialsSchema` produced.
 */
export function definePlatform<C, Guide extends object>(
  descriptor: PlatformDescriptor<C, Guide>,
): PlatformDescriptor<unknown, Guide> {
  return descriptor as unknown as PlatformDescriptor<unknown, Guide>;
}
