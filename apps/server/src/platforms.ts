import type { PlatformGuide } from "@resident/admin-api";
import { chatworkPlatform } from "@resident/chatwork";
import type { PlatformDescriptor } from "@resident/core";
import { slackPlatform } from "@resident/slack";
import { teamsPlatform } from "@resident/teams";

/**
 * The platforms this service serves, and the only file of the server that names one: routes, the admin API, log
 * redaction and the console are all built from this list. Adding a platform is its package and one line here.
 */
export const platforms: readonly PlatformDescriptor<unknown, PlatformGuide>[] = [
  slackPlatform,
  teamsPlatform,
  chatworkPlatform,
];
