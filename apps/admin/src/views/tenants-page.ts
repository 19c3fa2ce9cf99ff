import type { Tenant } from "@resident/admin-api";
import { describeProblem } from "../api-errors.ts";
import { alertBox } from "../components/alert-box.ts";
import { cardForm } from "../components/card-form.ts";
import { dataTable } from "../components/data-table.ts";
import { showIssuedToken } from "../components/issued-token.ts";
import { type Context, type Page, paths } from "../context.ts";
import { fill, h } from "../dom.ts";
import { formatTime } from "../format.ts";
import { text } from "../i18n/language.ts";
import { messagePage } from "./message-page.ts";

/** The operator's page: every tenant, a new tenant, and a tenant admin token issued (and shown) once. */
export async function tenantsPage(context: Context): Promise<Page> {
  const t = text().tenants;
  if (context.me.role !== "operator") return messagePage(text().errors.notFound, t.onlyOperator);
  const { api } = context;
  const list = h("div", {});
  const issued = h("div", { class: "issued", "aria-live": "polite" });
  const problem = alertBox();
  const { columns } = t;

  const showTenants = (tenants: Tenant[]) =>
    fill(
      list,
      tenants.length === 0
        ? h("p", {}, t.none)
        : dataTable(t.title, [columns.name, columns.id, columns.created, columns.adminTokens], tenants.map(tenantRow)),
    );

  // Each control's name says which tenant; it contains the visible words, as WCAG's "label in name" asks.
  const tenantRow = (tenant: Tenant) =>
    h(
      "tr",
      {},
      h("th", { scope: "row" }, h("a", { href: paths.tenant(tenant.id), "data-link": true }, tenant.name)),
      h("td", {}, h("code", {}, tenant.id)),
      h("td", {}, formatTime(tenant.createdAt)),
      h(
        "td",
        {},
        h(
          "button",
          {
            type: "button",
            class: "secondary",
            "aria-label": t.issueTokenFor(tenant.name),
            onclick: () => void issueToken(tenant),
          },
          t.issueToken,
        ),
        " ",
        h(
          "a",
          { href: paths.tokens(tenant.id), "data-link": true, "aria-label": t.tokensLinkOf(tenant.name) },
          t.tokensLink,
        ),
      ),
    );

  const issueToken = async (tenant: Tenant) => {
    problem.clear();
    try {
      // Named in the admin's language: the tokens list shows the name to whoever reads it later.
      const { token } = await api.issueToken(tenant.id, { name: t.defaultTokenName });
      showIssuedToken(issued, t.tokenFor(tenant.name), token, t.tokenHelp);
    } catch (error) {
      problem.show(describeProblem(error));
    }
  };

  const name = h("input", { id: "tenant-name", name: "name", required: true, maxlength: 200, autocomplete: "off" });
  const create = cardForm(
    problem,
    async () => {
      await api.createTenant(name.value.trim());
      name.value = "";
      showTenants(await api.tenants());
    },
    h("h2", {}, t.create),
    h("label", { for: "tenant-name" }, t.nameLabel),
    name,
    h("div", { class: "actions" }, h("button", { type: "submit" }, t.createButton)),
  );

  showTenants(await api.tenants());
  return {
    title: t.title,
    element: h("section", {}, h("h1", { tabindex: -1 }, t.title), problem.element, issued, list, create),
  };
}
