import type { Platform } from "@resident/core";

/** Where each platform delivers; the workspace id follows (DESIGN.md, "The outside contract"). */
export const webhookBase: Record<Platform, string> = {
  slack: "/slack/events",
  teams: "/teams/messages",
  chatwork: "/chatwork/webhook",
};

export function webhookPath(platform: Platform, workspaceId: string): string {
  return `${webhookBase[platform]}/${workspaceId}`;
}
