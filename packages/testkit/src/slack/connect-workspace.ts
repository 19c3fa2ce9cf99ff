import { randomBytes } from "node:crypto";
import type { AdminApi } from "@resident/admin-api";
import { type Delivered, deliver } from "../deliver.ts";
import type { FakeSlack, FakeSlackBot } from "./fake-slack.ts";
import { type SlackSigningOptions, signSlackRequest } from "./signed-requests.ts";

export interface SlackWorkspace {
  tenantId: string;
  tenantAdmin: AdminApi;
  tenantToken: string;
  workspaceId: string;
  webhookUrl: string;
  bot: FakeSlackBot;
  signingSecret: string;
  /** Signs `body` as Slack would for this workspace and POSTs it to the workspace's webhook. */
  send(body: unknown, options?: Omit<SlackSigningOptions, "signingSecret" | "body">): Promise<Delivered>;
  /** Where Slack sends this workspace's interactions (the app's Interactivity Request URL). */
  interactionUrl: string;
  /** Signs a form body (feedbackClick's) as Slack would and POSTs it to the interactions URL at `baseUrl`. */
  interact(form: string, baseUrl?: string): Promise<Delivered>;
}

/** A tenant with a Slack workspace connected through the admin API, its bot installed in the fake Slack. */
export async function connectSlackWorkspace(
  baseUrl: string,
  operator: AdminApi,
  slack: FakeSlack,
  settings: Record<string, unknown> = {},
): Promise<SlackWorkspace> {
  const tenant = await operator.tenantWithAdmin(`tenant ${randomBytes(3).toString("hex")}`);
  const bot = slack.addBot();
  const signingSecret = randomBytes(16).toString("hex");
  const workspace = await tenant.admin.createWorkspace(tenant.tenantId, {
    platform: "slack",
    name: "Support team",
    credentials: { signingSecret, botToken: bot.token },
    settings,
  });
  const webhookUrl = `${baseUrl}${workspace.webhookPath}`;
  const interactionPath = workspace.interactionPath ?? "";
  return {
    tenantId: tenant.tenantId,
    tenantAdmin: tenant.admin,
    tenantToken: tenant.token,
    workspaceId: workspace.id,
    webhookUrl,
    bot,
    signingSecret,
    send: (body, options = {}) => deliver(webhookUrl, signSlackRequest({ signingSecret, body, ...options })),
    interactionUrl: `${baseUrl}${interactionPath}`,
    interact: (form, via = baseUrl) =>
      deliver(
        `${via}${interactionPath}`,
        signSlackRequest({ signingSecret, body: form, contentType: "application/x-www-form-urlencoded" }),
      ),
  };
}
