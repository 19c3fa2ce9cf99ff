import type { ChatEvent, Platform, QueuedEvent } from "../chat-event.ts";
import type { FeedbackClick } from "../feedback.ts";
import type { ThreadMessage } from "../thread-context.ts";
import type { OutboundStreams } from "./outbound-stream.ts";
import type { BotIdentity, Workspace } from "./tenant-directory.ts";
import type { WorkingIndicator } from "./working-indicator.ts";

/** A webhook delivery exactly as it arrived; the raw bytes are what signatures cover. */
export interface InboundRequest {
  rawBody: Buffer;
  headers: Record<string, string | string[] | undefined>;
  query: Record<string, string | undefined>;
  /**
   * Which of the platform's endpoints it came to: absent, the webhook (or a receiver's connection); `interactions`,
   * the descriptor's `interactionPath` (clicks on our messages' buttons).
   */
  endpoint?: "interactions";
}

/** The platform's own note that this delivery is a retry (a retry-count header and its reason). */
export interface RetryNotice {
  attempt: number;
  reason: string;
}

export type Inbound =
  | { kind: "message"; event: ChatEvent; retry?: RetryNotice }
  /** A handshake the platform expects a direct answer to (a URL verification challenge). */
  | { kind: "respond"; status: number; body: unknown }
  /** Nothing to answer: our own message, another bot, an edit, a notice. */
  | { kind: "ignore"; reason: string; retry?: RetryNotice }
  /** A platform notice the adapter acts on itself after the ack (a thread opened: offer its suggested prompts). */
  | { kind: "notice"; reason: string; act(): Promise<void>; retry?: RetryNotice }
  /** The platform took our access to the workspace away (the app uninstalled, its bot token revoked). */
  | { kind: "revoked"; reason: string; retry?: RetryNotice }
  /** A click on one of our answers' feedback buttons: gated like any delivery, then counted. */
  | { kind: "feedback"; click: FeedbackClick };

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
 * One platform's behaviour: verify, normalize, send, reconcile, connect; built by its PlatformDescriptor.
 * Every adapter passes the shared contract suite in @resident/testkit.
 */
export interface PlatformAdapter<C = unknown> {
  /** Its descriptor's id. */
  readonly platform: Platform;
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
  /** Streamed answers, where the platform has them and the workspace has not turned them off. */
  readonly streams?: OutboundStreams<C>;
  /** Shows that the answer is being written, where the platform can. */
  readonly working?: WorkingIndicator<C>;
  /**
   * The latest messages of the event's thread or room, oldest first, at most `limit` (the event's own among them or
   * not), within the platform's rate limits across the cluster. Throws RateLimitedError when the platform (or the
   * shared window) says to wait. Adapters whose platform cannot be read leave this out.
   */
  threadMessages?(event: QueuedEvent, workspace: Workspace<C>, limit: number): Promise<ThreadMessage[]>;
  /** Checks credentials with the platform and learns the bot's identity. Throws InvalidCredentialsError. */
  connect(credentials: C): Promise<BotIdentity>;
}
