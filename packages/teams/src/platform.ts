import { definePlatform } from "@resident/core";
import { TeamsAdapter } from "./adapter.ts";
import { teamsCredentialsSchema } from "./credentials.ts";
import { teamsGuide } from "./guide.ts";

/**
 * Microsoft Teams as the service knows it. Reads TEAMS_OPENID_METADATA_URL, TEAMS_TOKEN_ISSUER and TEAMS_LOGIN_URL
 * (default: Microsoft's public cloud).
 */
export const teamsPlatform = definePlatform({
  id: "teams",
  webhookPath: "/teams/messages",
  credentialsSchema: teamsCredentialsSchema,
  secrets: { fields: ["appPassword"], headers: ["authorization"] },
  // Teams retries a delivery that fails, so refusing while the store is down loses nothing.
  defaultFailMode: "closed",
  guide: teamsGuide,
  createAdapter: ({ env, logger }) =>
    new TeamsAdapter({
      openIdMetadataUrl: env.TEAMS_OPENID_METADATA_URL,
      tokenIssuer: env.TEAMS_TOKEN_ISSUER,
      loginUrl: env.TEAMS_LOGIN_URL,
      logger,
    }),
});
