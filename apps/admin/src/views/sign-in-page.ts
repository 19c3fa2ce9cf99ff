import { ApiError } from "@resident/admin-api";
import { describeProblem } from "../api-errors.ts";
import { alertBox } from "../components/alert-box.ts";
import type { Page } from "../context.ts";
import { h } from "../dom.ts";
import { formatCount } from "../format.ts";
import { text } from "../i18n/language.ts";

export interface SignInOptions {
  signIn(token: string): Promise<void>;
  /** Why the user is here again (a token that stopped working). */
  notice?: string;
}

/** A tenant admin token or the operator token; kept in this tab's sessionStorage only. */
export function signInPage({ signIn, notice }: SignInOptions): Page {
  const t = text().signIn;
  const problem = alertBox();
  if (notice) problem.show({ message: notice, details: [] });
  const token = h("input", {
    id: "token",
    name: "token",
    type: "password",
    autocomplete: "off",
    spellcheck: "false",
    required: true,
    "aria-describedby": "token-help",
  });
  const submit = h("button", { type: "submit" }, t.title);
  const form = h(
    "form",
    {
      class: "card narrow",
      onsubmit: async (event: Event) => {
        event.preventDefault();
        submit.disabled = true;
        problem.clear();
        try {
          await signIn(token.value.trim());
        } catch (error) {
          problem.show({ message: signInFailure(error), details: [] });
          token.focus();
        } finally {
          submit.disabled = false;
        }
      },
    },
    h("h1", { tabindex: -1 }, t.title),
    problem.element,
    h("label", { for: "token" }, t.tokenLabel),
    h("p", { id: "token-help", class: "help" }, t.tokenHelp),
    token,
    h("div", { class: "actions" }, submit),
  );
  return { title: t.title, element: h("section", { class: "sign-in" }, form) };
}

function signInFailure(error: unknown): string {
  const t = text().signIn;
  if (error instanceof ApiError && error.status === 401) return t.invalidToken;
  if (error instanceof ApiError && error.status === 429) {
    return t.tooManyAttempts(formatCount(error.retryAfterSeconds ?? 60));
  }
  return describeProblem(error).message;
}
