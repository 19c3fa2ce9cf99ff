import {
  type AppDelivery,
  type InboundRequest,
  MalformedPayloadError,
  parseJsonBody,
  parsePayload,
} from "@resident/core";
import { z } from "zod";
import { interactionPayload } from "./interaction.ts";
import { urlVerificationSchema } from "./payload.ts";
import { isSslCheck } from "./ssl-check.ts";

const authorizationSchema = z.object({
  team_id: z.string().nullish(),
  enterprise_id: z.string().nullish(),
  is_enterprise_install: z.boolean().optional(),
});

/** The parts of any Events API body that say which installation it is for. */
const routedBodySchema = z.object({
  type: z.string(),
  team_id: z.string().nullish(),
  enterprise_id: z.string().nullish(),
  is_enterprise_install: z.boolean().optional(),
  authorizations: z.array(authorizationSchema).optional(),
});

/** The parts of an interaction payload that say which installation it is for (bolt-js reads actions so). */
const routedInteractionSchema = z.object({
  team: z.object({ id: z.string(), enterprise_id: z.string().nullish() }).nullish(),
  enterprise: z.object({ id: z.string() }).nullish(),
  is_enterprise_install: z.boolean().optional(),
});

/** An installation's key: per team, or per enterprise for an Enterprise Grid org-wide install. */
export const teamKey = (teamId: string) => `team:${teamId}`;
export const enterpriseKey = (enterpriseId: string) => `enterprise:${enterpriseId}`;

/**
 * Which installation of the distributed app a verified delivery is for, as bolt-js reads it: the delivery's
 * authorization (the installation Slack delivers it for) first, the body's own team and enterprise after; an
 * interaction (one that came over Socket Mode: the app has no Interactivity Request URL) by its team and enterprise.
 * The URL handshakes are answered here: no installation is involved in them.
 */
export function routeAppDelivery(request: InboundRequest): AppDelivery {
  if (request.endpoint === "interactions") {
    const routed = parsePayload(routedInteractionSchema, interactionPayload(request), "interaction payload");
    return installation(
      routed.is_enterprise_install ?? false,
      routed.enterprise?.id ?? routed.team?.enterprise_id,
      routed.team?.id,
    );
  }
  if (isSslCheck(request)) return { kind: "respond", status: 200, body: { ok: true } };
  const body = parseJsonBody(request.rawBody);
  const routed = parsePayload(routedBodySchema, body, "Events API body");
  if (routed.type === "url_verification") {
    const { challenge } = parsePayload(urlVerificationSchema, body, "url_verification");
    return { kind: "respond", status: 200, body: { challenge } };
  }
  const authorization = routed.authorizations?.[0];
  return installation(
    authorization?.is_enterprise_install ?? routed.is_enterprise_install ?? false,
    authorization?.enterprise_id ?? routed.enterprise_id,
    authorization?.team_id ?? routed.team_id,
  );
}

/**
 * An org-wide install is found by its enterprise; a workspace's own install by its team, and, failing that, the
 * enterprise it belongs to.
 */
function installation(
  enterpriseInstall: boolean,
  enterprise: string | null | undefined,
  team: string | null | undefined,
): AppDelivery {
  const keys =
    enterpriseInstall && enterprise
      ? [enterpriseKey(enterprise)]
      : [...(team ? [teamKey(team)] : []), ...(enterprise ? [enterpriseKey(enterprise)] : [])];
  if (keys.length === 0) throw new MalformedPayloadError("the delivery names no team and no enterprise");
  return { kind: "installation", keys };
}
