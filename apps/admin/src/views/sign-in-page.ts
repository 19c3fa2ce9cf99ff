import { ApiError } from "../api.ts";
import { alertBox } from "../components/alert-box.ts";
import type { Page } from "../context.ts";
import { h } from "../dom.ts";

export interface SignInOptions {
  signIn(token: string): Promise<void>;
  /** Why the user is here again (a token that stopped working). */
  notice?: string;
}

/** A tenant admin token or the operator token; kept in this tab's sessionStorage only. */
export function signInPage({ signIn, notice }: SignInOptions): Page {
  const problem = alertBox();
  if (notice) problem.show(notice);
  const token = h("input", {
    id: "token",
    name: "token",
    type: "password",
    autocomplete: "off",
    spellcheck: "false",
    required: true,
    "aria-describedby": "token-help",
  });
  const submit = h("button", { type: "submit" }, "Sign in");
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
          problem.show(signInFailure(error));
          token.focus();
        } finally {
          submit.disabled = false;
        }
      },
    },
    h("h1", { tabindex: -1 }, "Sign in"),
    problem.element,
    h("label", { for: "token" }, "Admin token"),
    h(
      "p",
      { id: "token-help", class: "help" },
      "Your tenant admin token, or the operator token. It stays in this browser tab only and is forgotten when " +
        "the tab closes.",
    ),
    token,
    h("div", { class: "actions" }, submit),
  );
  return { title: "Sign in", element: h("section", { class: "sign-in" }, form) };
}

function signInFailure(error: unknown): string {
  if (!(error instanceof ApiError)) return "The console could not reach resident. Try again.";
  if (error.status === 401) return "That token is not valid.";
  if (error.status === 429) {
    return `That token is not valid, and there have been too many failed sign-ins: every attempt from here is slowed down for the next ${error.retryAfterSeconds ?? 60} seconds. A valid token still signs in.`;
  }
  return error.message;
}
