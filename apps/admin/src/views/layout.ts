import { type Context, paths } from "../context.ts";
import { h } from "../dom.ts";
import { type ConsoleLanguage, consoleLanguages, language, ownName, text } from "../i18n/language.ts";

export interface Shell {
  /** Absent on the sign-in page. */
  context?: Context;
  signOut(): void;
  chooseLanguage(language: ConsoleLanguage): void;
}

/** Skip link, header (the language choice, and once signed in the navigation and who it is) and the page. */
export function layout(shell: Shell, page: HTMLElement): HTMLElement {
  const t = text().shell;
  const { context } = shell;
  return h(
    "div",
    { class: "shell" },
    h("a", { class: "skip-link", href: "#main" }, t.skipToContent),
    h(
      "header",
      { class: "top" },
      h("a", { class: "brand", href: paths.home(), "data-link": true }, t.product),
      context && navigation(context),
      h(
        "div",
        { class: "who" },
        languageChoice(shell),
        context && h("span", {}, context.me.role === "operator" ? t.operator : t.adminOf(context.me.tenantName)),
        context && h("button", { type: "button", class: "secondary", onclick: () => shell.signOut() }, t.signOut),
      ),
    ),
    h("main", { id: "main", tabindex: -1 }, page),
  );
}

function navigation({ me }: Context): HTMLElement {
  const t = text().shell;
  const links =
    me.role === "operator"
      ? [link(paths.tenants(), t.tenants)]
      : [
          link(paths.tenant(me.tenantId), t.workspaces),
          link(paths.tokens(me.tenantId), t.tokens),
          link(paths.budget(me.tenantId), t.budget),
          link(paths.audit(me.tenantId), t.auditLog),
        ];
  return h("nav", { "aria-label": t.mainNavigation }, h("ul", {}, ...links.map((item) => h("li", {}, item))));
}

/** Two toggle buttons, each language named in itself (and marked so, for screen readers). */
function languageChoice(shell: Shell): HTMLElement {
  return h(
    "div",
    { class: "languages", role: "group", "aria-label": text().shell.language },
    ...consoleLanguages.map((code) =>
      h(
        "button",
        {
          type: "button",
          class: "secondary",
          lang: code,
          "aria-pressed": String(code === language()),
          onclick: () => shell.chooseLanguage(code),
        },
        ownName(code),
      ),
    ),
  );
}

function link(href: string, text: string): HTMLAnchorElement {
  const current = location.pathname === href;
  return h("a", { href, "data-link": true, "aria-current": current ? "page" : undefined }, text);
}
