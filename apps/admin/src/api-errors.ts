import type { ConnectFailure, PlatformView } from "@resident/admin-api";
import { ApiError } from "@resident/admin-api";
import { h } from "./dom.ts";
import { fieldLabel } from "./field-labels.ts";
import { text } from "./i18n/language.ts";

/** An error as the console tells it: a sentence of the catalogue, and details that name what was wrong. */
export interface ProblemText {
  message: string;
  details: Node[];
}

/**
 * The admin API's answers mapped to the catalogue by what is stable in them (the status, a 422's `reason`), not by
 * their English wording. Details the API or a platform wrote stay in their words, marked as English for screen
 * readers; the field they concern is named in the console's language. `platform`: the one a form was about.
 */
export function describeProblem(error: unknown, platform?: PlatformView): ProblemText {
  const t = text().errors;
  if (!(error instanceof ApiError)) return { message: t.unreachable, details: [] };
  const { status, answer } = error;
  if (status === 400) {
    return { message: t.invalidInput, details: (answer.issues ?? []).map((issue) => issueText(issue, platform)) };
  }
  if (status === 401) return { message: t.sessionEnded, details: [] };
  if (status === 403) return { message: t.forbidden, details: [] };
  if (status === 404) return { message: t.notYours, details: [] };
  if (status === 413) return { message: t.tooLarge, details: [] };
  if (status === 503) return { message: t.storeUnavailable, details: [] };
  if (status === 422 && platform && (answer.reason === "refused" || answer.reason === "unreachable")) {
    return connectProblem(answer as ConnectFailure, platform);
  }
  return { message: t.serverFailed, details: [] };
}

/** A failed connection check: the console's sentence for its reason, then what the platform said. */
export function connectProblem(failure: ConnectFailure, platform: PlatformView): ProblemText {
  const t = text().errors;
  const name = platform.displayName;
  const message = failure.reason === "refused" ? t.credentialsRefused(name) : t.platformUnreachable(name);
  return { message, details: [h("span", {}, t.platformSaid(name), " ", h("span", { lang: "en" }, failure.detail))] };
}

/** "settings.eventTtlSeconds: Too big" → the field's label in the console's language, then the API's rule. */
function issueText(issue: string, platform?: PlatformView): Node {
  const at = issue.indexOf(": ");
  const label = at < 0 || !platform ? undefined : fieldLabel(issue.slice(0, at), [platform]);
  if (!label) return h("span", { lang: "en" }, issue);
  return h("span", {}, `${label}: `, h("span", { lang: "en" }, issue.slice(at + 2)));
}
