import { MalformedPayloadError } from "@resident/core";
import { appMention, appUninstalled, slackId, tokensRevoked, urlVerification } from "@resident/testkit/slack";
import { describe, expect, it } from "vitest";
import { routeAppDelivery } from "../src/app-routing.ts";
import { revocationOf } from "../src/revocation.ts";

const bot = { teamId: "T0TEAM", appId: "A0APP", userId: "U0BOT", botId: "B0BOT" };
const request = (body: unknown, contentType = "application/json") => ({
  rawBody: Buffer.from(typeof body === "string" ? body : JSON.stringify(body)),
  headers: { "content-type": contentType },
  query: {},
});

describe("which installation a delivery at the app's one URL is for", () => {
  it("is a workspace's own install by its team", () => {
    expect(routeAppDelivery(request(appMention(bot, "hi")))).toEqual({ kind: "installation", keys: ["team:T0TEAM"] });
  });

  it("is an org-wide install by its enterprise, when the authorization says it is one", () => {
    const orgWide = { ...bot, enterpriseId: "E0ORG", enterpriseInstall: true };
    expect(routeAppDelivery(request(appMention(orgWide, "hi")))).toEqual({
      kind: "installation",
      keys: ["enterprise:E0ORG"],
    });
  });

  it("is a Grid workspace's own install first, its org's after", () => {
    const inOrg = { ...bot, enterpriseId: "E0ORG" };
    expect(routeAppDelivery(request(appMention(inOrg, "hi")))).toEqual({
      kind: "installation",
      keys: ["team:T0TEAM", "enterprise:E0ORG"],
    });
  });

  it("reads the authorization before the body's own team (a shared channel's event names the other side)", () => {
    const delivery = { ...appMention(bot, "hi"), team_id: "T0OTHER" };
    expect(routeAppDelivery(request(delivery))).toEqual({ kind: "installation", keys: ["team:T0TEAM"] });
  });

  it("answers the URL handshakes itself, and refuses a body that names nobody", () => {
    const { challenge } = urlVerification();
    expect(routeAppDelivery(request(urlVerification(challenge)))).toEqual({
      kind: "respond",
      status: 200,
      body: { challenge },
    });
    expect(routeAppDelivery(request("ssl_check=1&token=x", "application/x-www-form-urlencoded"))).toMatchObject({
      kind: "respond",
      status: 200,
    });
    expect(() => routeAppDelivery(request({ type: "event_callback" }))).toThrow(MalformedPayloadError);
    expect(() => routeAppDelivery(request("{not json"))).toThrow(MalformedPayloadError);
  });

  it("reads an interaction (a Socket Mode click) by its team, an org-wide install's by its enterprise", () => {
    const click = (payload: unknown) => ({
      ...request(`payload=${encodeURIComponent(JSON.stringify(payload))}`, "application/x-www-form-urlencoded"),
      endpoint: "interactions" as const,
    });
    const team = { id: "T0TEAM", domain: "team", enterprise_id: "E0ORG" };
    expect(routeAppDelivery(click({ type: "block_actions", team }))).toEqual({
      kind: "installation",
      keys: ["team:T0TEAM", "enterprise:E0ORG"],
    });
    expect(
      routeAppDelivery(
        click({ type: "block_actions", team, enterprise: { id: "E0ORG" }, is_enterprise_install: true }),
      ),
    ).toEqual({ kind: "installation", keys: ["enterprise:E0ORG"] });
    expect(() => routeAppDelivery(click({ type: "block_actions", team: null }))).toThrow(MalformedPayloadError);
    expect(() => routeAppDelivery({ ...click({}), rawBody: Buffer.from("payload={not json") })).toThrow(
      MalformedPayloadError,
    );
  });
});

describe("a revocation", () => {
  it("is the app uninstalled, or the bot's token revoked; not user tokens alone, nor any other event", () => {
    expect(revocationOf(appUninstalled(bot).event)).toMatch(/^app_uninstalled/);
    expect(revocationOf(tokensRevoked(bot).event)).toMatch(/^tokens_revoked/);
    expect(revocationOf(tokensRevoked(bot, { oauth: [slackId("U")] }).event)).toBeUndefined();
    expect(revocationOf(appMention(bot, "hi").event)).toBeUndefined();
    expect(() => revocationOf({ type: "tokens_revoked" })).toThrow(MalformedPayloadError);
  });
});
