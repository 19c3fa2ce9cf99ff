import {
  type BotIdentity,
  type Inbound,
  type InboundRequest,
  InvalidCredentialsError,
  type OutboundReply,
  type PlatformAdapter,
  type SentReply,
  type Workspace,
} from "@resident/core";
import { z } from "zod";
import { TestchatApi } from "./api.ts";
import type { TestchatCredentials } from "./credentials.ts";
import { normalizeDelivery } from "./normalize.ts";
import { parseDelivery } from "./payload.ts";
import { findPostedReply, postReply } from "./send.ts";
import { verifyDelivery } from "./verify.ts";

const meSchema = z.object({ id: z.string(), name: z.string() });

/** Testchat: signed JSON webhooks in, a bearer-token JSON API out. */
export class TestchatAdapter implements PlatformAdapter<TestchatCredentials> {
  readonly platform = "testchat";
  private readonly api: TestchatApi;

  constructor(options: { apiUrl: string; timeoutMs?: number }) {
    this.api = new TestchatApi(options.apiUrl.replace(/\/+$/, ""), options.timeoutMs ?? 10_000);
  }

  async verify(request: InboundRequest, workspace: Workspace<TestchatCredentials>): Promise<void> {
    verifyDelivery(request, workspace.credentials.signingSecret);
  }

  normalize(request: InboundRequest, workspace: Workspace<TestchatCredentials>, receivedAt: number): Inbound {
    return normalizeDelivery(parseDelivery(request.rawBody), workspace, receivedAt);
  }

  send(reply: OutboundReply, workspace: Workspace<TestchatCredentials>): Promise<SentReply> {
    return postReply(this.api, workspace.credentials.apiToken, reply);
  }

  findReply(reply: OutboundReply, workspace: Workspace<TestchatCredentials>): Promise<SentReply | undefined> {
    return findPostedReply(this.api, workspace.credentials.apiToken, workspace.identity.botId, reply);
  }

  async connect(credentials: TestchatCredentials): Promise<BotIdentity> {
    const response = await this.api.call(credentials.apiToken, "GET", "/me");
    if (response.status === 401) throw new InvalidCredentialsError("Testchat refused the API token");
    if (!response.ok) throw new Error(`Testchat GET /me answered ${response.status}`);
    const me = meSchema.parse(await response.json());
    return { botId: me.id, name: me.name };
  }
}
