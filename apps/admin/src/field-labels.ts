import type { PlatformView } from "@resident/admin-api";
import { text, translated } from "./i18n/language.ts";

/**
 * The console's name for a field the admin API names by its path ("settings.model", "credentials.botToken",
 * "identity.teamId"): in validation issues and in the audit log. Undefined for a path it does not know.
 */
export function fieldLabel(path: string, platforms: readonly PlatformView[]): string | undefined {
  const t = text();
  const [group, name] = path.split(".");
  if (group === "credentials") {
    const field = platforms.flatMap((p) => p.credentialFields).find((candidate) => candidate.name === name);
    return field && translated(field.label);
  }
  if (group === "identity" && name) {
    const label = platforms.map((p) => p.identityLabels[name]).find((candidate) => candidate !== undefined);
    return label && translated(label);
  }
  const labels: Record<string, string> = {
    name: t.form.name,
    "settings.systemPrompt": t.workspace.systemPrompt,
    "settings.model": t.workspace.model,
    "settings.failMode": t.workspace.failMode,
    "settings.eventTtlSeconds": t.workspace.eventTtl,
    "settings.replyTtlSeconds": t.workspace.replyTtl,
    "settings.streaming": t.workspace.streaming,
    "settings.suggestedPrompts": t.workspace.suggestedPrompts,
    "budget.tokensPerDay": t.budget.tokensPerDay,
    "budget.answersPerMinute": t.budget.answersPerMinute,
    tokensPerDay: t.budget.tokensPerDay,
    answersPerMinute: t.budget.answersPerMinute,
  };
  return labels[path];
}
