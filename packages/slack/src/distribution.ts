import type { IncomingMessage, ServerResponse } from "node:http";
import {
  type AppDistribution,
  type DistributionContext,
  type InstallBinding,
  type InstallOutcome,
  type NewInstallation,
  VerificationError,
} from "@resident/core";
import { type Installation, InstallProvider, InvalidStateError } from "@slack/oauth";
import { bridge } from "./api.ts";
import { enterpriseKey, routeAppDelivery, teamKey } from "./app-routing.ts";
import type { SlackInstallationCredentials } from "./credentials.ts";
import { verifyDelivery } from "./verify.ts";

/** What the bot needs in each workspace: what the Slack guide asks a single-workspace app for. */
const installScopes = ["app_mentions:read", "chat:write", "im:history", "channels:history", "assistant:write"];

/** How long an admin has between "Add to Slack" and coming back from Slack. */
const stateTtlMs = 10 * 60_000;
const stateCookie = "resident-slack-install";
const slackEventsPath = "/slack/events";
const slackCallbackPath = "/slack/oauth/callback";

/**
 * The operator's Slack app for distribution: all of SLACK_CLIENT_ID, SLACK_CLIENT_SECRET, SLACK_SIGNING_SECRET, and
 * SLACK_APP_TOKEN when its events come over Socket Mode too.
 */
interface DistributedApp {
  clientId: string;
  clientSecret: string;
  signingSecret: string;
  authorizationUrl: string;
  /** SLACK_APP_TOKEN: the app's deliveries over Socket Mode as well, for all its installations. */
  appToken?: string;
}

function distributedApp(env: DistributionContext["env"]): DistributedApp | undefined {
  const given = {
    SLACK_CLIENT_ID: env.SLACK_CLIENT_ID,
    SLACK_CLIENT_SECRET: env.SLACK_CLIENT_SECRET,
    SLACK_SIGNING_SECRET: env.SLACK_SIGNING_SECRET,
  };
  // The client id and secret alone serve token rotation of per-workspace apps; the app's own signing secret is what
  // makes it an app with a Request URL of its own.
  if (!given.SLACK_SIGNING_SECRET) return undefined;
  const missing = Object.entries(given).flatMap(([name, value]) => (value ? [] : [name]));
  if (missing.length > 0) throw new Error(`a distributed Slack app needs ${missing.join(" and ")} as well`);
  return {
    clientId: given.SLACK_CLIENT_ID as string,
    clientSecret: given.SLACK_CLIENT_SECRET as string,
    signingSecret: given.SLACK_SIGNING_SECRET as string,
    authorizationUrl: env.SLACK_OAUTH_URL || "https://slack.com/oauth/v2/authorize",
    ...(env.SLACK_APP_TOKEN ? { appToken: env.SLACK_APP_TOKEN } : {}),
  };
}

/**
 * "Add to Slack" and the one Request URL of the operator's Slack app, when the environment configures one.
 * @slack/oauth's InstallProvider runs the OAuth v2 flow: the authorize URL, the state checked against the admin's
 * browser (its cookie) and against our store, oauth.v2.access, auth.test for the bot's id. Its StateStore and
 * InstallationStore are ours, on the tenants' database: a state is taken once and bound to the admin token that
 * began the install, an installation becomes a workspace of that admin's tenant.
 */
export function slackDistribution(context: DistributionContext): AppDistribution | undefined {
  const app = distributedApp(context.env);
  if (!app) return undefined;
  const { installations, publicUrl } = context;
  const redirectUri = `${publicUrl}${slackCallbackPath}`;
  const stored = new WeakMap<Installation, { workspaceId: string; tenantId: string }>();
  const provider = new InstallProvider({
    clientId: app.clientId,
    clientSecret: app.clientSecret,
    authorizationUrl: app.authorizationUrl,
    stateCookieName: stateCookie,
    stateStore: {
      generateStateParam: (options) => installations.beginInstall("slack", bindingIn(options.metadata), stateTtlMs),
      verifyStateParam: async (_now, state) => {
        const binding = await installations.takeInstall("slack", state);
        if (!binding) throw new InvalidStateError("the install state is unknown, used, expired or its admin's");
        return { scopes: installScopes, redirectUri, metadata: JSON.stringify(binding) };
      },
    },
    installationStore: {
      storeInstallation: async (installation) => {
        stored.set(installation, await installations.install(toNewInstallation(installation)));
      },
      // The provider reads installations only in authorize(), which the service never calls: its directory finds
      // a delivery's workspace (and its tokens) through AppInstallations.workspaceFor instead.
      fetchInstallation: () => Promise.reject(new Error("installations are read through the tenants' directory")),
    },
    clientOptions: {
      slackApiUrl: context.env.SLACK_API_URL || "https://slack.com/api/",
      // A code is good for one exchange: a retried oauth.v2.access could only fail, and hold the admin up.
      retryConfig: { retries: 0 },
    },
    logger: bridge(context.logger),
  });
  const secure = publicUrl.startsWith("https:");

  return {
    eventsPath: slackEventsPath,
    callbackPath: slackCallbackPath,
    verify(request, now) {
      verifyDelivery(request, app.signingSecret, now);
    },
    route: routeAppDelivery,
    ...(app.appToken ? { receiverCredentials: { appToken: app.appToken } } : {}),
    async beginInstall(binding) {
      const url = await provider.generateInstallUrl({
        scopes: installScopes,
        redirectUri,
        metadata: JSON.stringify(binding),
      });
      const state = new URL(url).searchParams.get("state") ?? "";
      // The provider's own cookie is Secure always; over plain http (a local run) a browser would drop it.
      const setCookie = `${stateCookie}=${state}; HttpOnly; SameSite=Lax; Path=/; Max-Age=${stateTtlMs / 1000}${secure ? "; Secure" : ""}`;
      return { url, setCookie };
    },
    async completeInstall(req: IncomingMessage, res: ServerResponse): Promise<InstallOutcome> {
      let outcome: InstallOutcome = { ok: false, reason: "the install did not complete" };
      await provider.handleCallback(req, res, {
        successAsync: async (installation) => {
          const done = stored.get(installation);
          if (done) outcome = { ok: true, ...done };
        },
        failureAsync: async (error, options) => {
          const tenantId = options.metadata ? bindingIn(options.metadata).tenantId : undefined;
          outcome = { ok: false, reason: error.message, ...(tenantId ? { tenantId } : {}) };
        },
      });
      return outcome;
    },
  };
}

function bindingIn(metadata: string | undefined): InstallBinding {
  const parsed: unknown = JSON.parse(metadata ?? "null");
  const { tenantId, tokenId } = (parsed ?? {}) as Partial<InstallBinding>;
  if (typeof tenantId !== "string") throw new VerificationError("an install must be begun by a tenant's admin");
  return { tenantId, ...(typeof tokenId === "string" ? { tokenId } : {}) };
}

/** oauth.v2.access's answer as the provider built it, in the shape of a workspace (and its tokens' shape). */
function toNewInstallation(installation: Installation): NewInstallation {
  const { bot, team, enterprise, isEnterpriseInstall, appId } = installation;
  if (!bot) throw new Error("the installation granted no bot token: the app must ask for bot scopes");
  const orgWide = Boolean(isEnterpriseInstall && enterprise);
  const teamId = team?.id ?? enterprise?.id;
  if (!teamId) throw new Error("oauth.v2.access named neither a team nor an enterprise");
  const credentials: SlackInstallationCredentials = {
    botToken: bot.token,
    ...(bot.refreshToken ? { botRefreshToken: bot.refreshToken } : {}),
    // The provider keeps expires_in as epoch seconds; the workspace's credentials carry epoch ms.
    ...(bot.expiresAt ? { botTokenExpiresAt: bot.expiresAt * 1000 } : {}),
  };
  return {
    platform: "slack",
    binding: bindingIn(installation.metadata),
    key: orgWide && enterprise ? enterpriseKey(enterprise.id) : teamKey(teamId),
    name: (orgWide ? enterprise?.name : team?.name) ?? teamId,
    credentials: { ...credentials },
    identity: {
      botUserId: bot.userId,
      ...(bot.id ? { botId: bot.id } : {}),
      teamId,
      ...(appId ? { appId } : {}),
      ...(enterprise ? { enterpriseId: enterprise.id } : {}),
    },
  };
}
