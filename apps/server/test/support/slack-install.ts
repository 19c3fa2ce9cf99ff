import { randomBytes } from "node:crypto";
import type { AdminApi } from "@resident/admin-api";
import { type FakeInstallTarget, type FakeSlack, type FakeSlackBot, signSlackRequest } from "@resident/testkit/slack";
import { type InProcessService, startAtOwnAddress } from "./in-process-service.ts";

/** One instance serving the operator's distributed Slack app, reachable at its PUBLIC_URL (where Slack redirects). */
export interface DistributedAppService {
  s: InProcessService;
  /** POSTs `body` to the app's one Request URL, signed with the app's secret (or `secret`). */
  atTheAppUrl(body: unknown, secret?: string): Promise<Response>;
}

/** `socketMode`: the app takes its events over Socket Mode as well (SLACK_APP_TOKEN, an app-level token). */
export async function startDistributedAppService(
  options: { socketMode?: boolean; env?: Record<string, string> } = {},
): Promise<DistributedAppService> {
  const signingSecret = randomBytes(16).toString("hex");
  const s = await startAtOwnAddress({ SLACK_SIGNING_SECRET: signingSecret, ...options.env }, undefined, (slack) => {
    const app = slack.oauth.enable();
    const appToken = options.socketMode ? slack.socketMode.addApp(app.appId) : undefined;
    return {
      SLACK_CLIENT_ID: app.clientId,
      SLACK_CLIENT_SECRET: app.clientSecret,
      ...(appToken ? { SLACK_APP_TOKEN: appToken } : {}),
    };
  });
  return {
    s,
    atTheAppUrl(body, secret = signingSecret) {
      const { rawBody, headers } = signSlackRequest({ signingSecret: secret, body });
      return fetch(`${s.url}/slack/events`, { method: "POST", body: new Uint8Array(rawBody), headers });
    },
  };
}

/** An install begun in the console's name: the authorize URL and the cookie the browser was given. */
export interface BegunInstall {
  authorizeUrl: string;
  /** `name=value`, as a browser sends it back. */
  cookie: string;
}

export async function beginInstall(admin: AdminApi, tenantId: string): Promise<BegunInstall> {
  const response = await admin.request<{ url: string }>("POST", `/tenants/${tenantId}/installs/slack`);
  if (response.status !== 200) throw new Error(`install not begun: ${response.status}`);
  const cookie = (response.headers.get("set-cookie") ?? "").split(";")[0] ?? "";
  return { authorizeUrl: response.body.url, cookie };
}

/** The admin allows the install at the fake Slack: the callback URL Slack sends the browser back to. */
export async function approveAt(slack: FakeSlack, begun: BegunInstall, target: FakeInstallTarget): Promise<string> {
  const approved = await fetch(slack.oauth.approveUrl(begun.authorizeUrl, target), { redirect: "manual" });
  const location = approved.headers.get("location");
  if (approved.status !== 302 || !location) throw new Error(`the fake Slack did not redirect: ${approved.status}`);
  return location;
}

/** The browser back at the service: its answer (a redirect to the console, or a refusal page). */
export async function returnTo(callbackUrl: string, cookie?: string) {
  const response = await fetch(callbackUrl, { redirect: "manual", headers: cookie ? { cookie } : {} });
  return { status: response.status, location: response.headers.get("location"), body: await response.text() };
}

/**
 * A new tenant whose admin installs the app into `target` (default: a new team offered at the fake) through the whole
 * OAuth flow: its workspace, and the bot Slack granted it.
 */
export async function installThroughOAuth(s: InProcessService, target: FakeInstallTarget = s.slack.oauth.offer()) {
  const tenant = await s.operator.tenantWithAdmin(`tenant ${randomBytes(3).toString("hex")}`);
  const begun = await beginInstall(tenant.admin, tenant.tenantId);
  const back = await returnTo(await approveAt(s.slack, begun, target), begun.cookie);
  const workspaceId = /^\/admin\/tenants\/[\w-]+\/workspaces\/(ws_[\w-]+)$/.exec(back.location ?? "")?.[1];
  if (back.status !== 303 || !back.location?.startsWith(`/admin/tenants/${tenant.tenantId}/`) || !workspaceId) {
    throw new Error(`the install did not complete: ${back.status} ${back.location ?? back.body}`);
  }
  const bot = s.slack.oauth.bots().at(-1) as FakeSlackBot;
  return { ...tenant, workspaceId, bot, target };
}
