import { type Context, paths } from "../context.ts";
import { h } from "../dom.ts";

/** Header with the console's navigation and who is signed in, around the page. */
export function layout(context: Context, signOut: () => void, page: HTMLElement): HTMLElement {
  const { me } = context;
  const links =
    me.role === "operator"
      ? [link(paths.tenants(), "Tenants")]
      : [
          link(paths.tenant(me.tenantId), "Workspaces"),
          link(paths.tokens(me.tenantId), "Tokens"),
          link(paths.audit(me.tenantId), "Audit log"),
        ];
  return h(
    "div",
    { class: "shell" },
    h(
      "header",
      { class: "top" },
      h("a", { class: "brand", href: paths.home(), "data-link": true }, "resident admin"),
      h("nav", { "aria-label": "Main" }, h("ul", {}, ...links.map((item) => h("li", {}, item)))),
      h(
        "div",
        { class: "who" },
        h("span", {}, me.role === "operator" ? "Operator" : `Admin of ${me.tenantName}`),
        h("button", { type: "button", class: "secondary", onclick: () => signOut() }, "Sign out"),
      ),
    ),
    h("main", { id: "main", tabindex: -1 }, page),
  );
}

function link(href: string, text: string): HTMLAnchorElement {
  const current = location.pathname === href;
  return h("a", { href, "data-link": true, "aria-current": current ? "page" : undefined }, text);
}
