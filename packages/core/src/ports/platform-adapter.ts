import type { ZodType } from "zod";
import type { ChatEvent, Platform, QueuedEvent } from "../chat-event.ts";
import type { FailMode } from "../settings.ts";
import type { PlatformGuide } from "./platform-guide.ts";
import type { BotIdentity, Workspace } from "./tenant-directory.ts";

/** A webhook delivery exactly as it arrived; the raw bytes are what signatures cover. */
export interface InboundRequest {
  rawBody: Buffer;
  headers: Record<string, string | string[] | undefined>;
  query: Record<string, string | undefined>;
}

/** The platform's own note that this delivery is a retry (Slack X-Slack-Retry-Num / -Reason). */
export interface RetryNotice {
  attempt: number;
  reason: string;
}

export type Inbound =
  | { kind: "message"; event: ChatEvent; retry?: RetryNotice }
  /** A handshake the platform expects a direct answer to (Slack url_verification). */
  | { kind: "respond"; status: number; body: unknown }
  /** Nothing to answer: our own message, another bot, an edit, a notice. */
  | { kind: "ignore"; reason: string; retry?: RetryNotice };

export interface OutboundReply {
  event: QueuedEvent;
  text: string;
  /** The reply ledger key; adapters stamp it (or the source message) on the post so it can be found again. */
  replyKey: string;
}

export interface SentReply {
  messageId: string;
}

/**
 * One platform's whole story: verify, normalize, send, reconcile, connect.
 * Every adapter passes the shared contract suite in @resident/testkit.
 */
export interface PlatformAdapter<C = unknown> {
  readonly platform: Platform;
  /** Validates the credentials an admin gives for a workspace of this platform. */
  readonly credentialsSchema: ZodType<C>;
  /** The fail mode a new workspace gets when the admin does not choose one. */
  readonly defaultFailMode: FailMode;
  /** Credential fields, setup steps and fail-mode consequences, for the admin console. */
  readonly guide: PlatformGuide;
  /** Checks the delivery came from the platform. Throws VerificationError (→ 401). */
  verify(request: InboundRequest, workspace: Workspace<C>, now: number): Promise<void>;
  /** Turns a verified delivery into a ChatEvent, a direct answer or nothing. Throws MalformedPayloadError (→ 400). */
  normalize(request: InboundRequest, workspace: Workspace<C>, receivedAt: number): Inbound;
  /** Posts once, with no automatic retries. Throws RateLimitedError, SendRejectedError or OutcomeUnknownError. */
  send(reply: OutboundReply, workspace: Workspace<C>): Promise<SentReply>;
  /**
   * After OutcomeUnknownError: looks for the reply on the platform. `undefined` means it is certainly not there;
   * adapters whose platform cannot be read back leave this out, and an unknown outcome is then never resent.
   */
  findReply?(reply: OutboundReply, workspace: Workspace<C>): Promise<SentReply | undefined>;
  /** Checks credentials with the platform and learns the bot's identity. Throws InvalidCredentialsError. */
  connect(credentials: C): Promise<BotIdentity>;
}
