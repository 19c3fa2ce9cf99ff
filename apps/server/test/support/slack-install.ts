import { randomBytes } from "node:crypto";
import type { AdminApi } from "@resident/admin-api";
import { freePort } from "@resident/testkit/processes";
import { type FakeInstallTarget, type FakeSlack, signSlackRequest } from "@resident/testkit/slack";
import { type InProcessService, startInProcessService } from "./in-process-service.ts";

/** One instance serving the operator's distributed Slack app, reachable at its PUBLIC_URL (where Slack redirects). */
export interface DistributedAppService {
  s: InProcessService;
  /** POSTs `body` to the app's one Request URL, signed with the app's secret (or `secret`). */
  atTheAppUrl(body: unknown, secret?: string): Promise<Response>;
}

export async function startDistributedAppService(): Promise<DistributedAppService> {
  const port = await freePort();
  const signingSecret = randomBytes(16).toString("hex");
  const s = await startInProcessService({
    PORT: String(port),
    PUBLIC_URL: `http://127.0.0.1:${port}`,
    SLACK_CLIENT_ID: `${port}.${randomBytes(4).readUInt32BE()}`,
    SLACK_CLIENT_SECRET: randomBytes(16).toString("hex"),
    SLACK_SIGNING_SECRET: signingSecret,
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
