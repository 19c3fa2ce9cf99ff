import { ApiError } from "../api.ts";
import type { Tenant } from "../api-types.ts";
import { alertBox } from "../components/alert-box.ts";
import { cardForm } from "../components/card-form.ts";
import { dataTable } from "../components/data-table.ts";
import { showIssuedToken } from "../components/issued-token.ts";
import { type Context, type Page, paths } from "../context.ts";
import { fill, h } from "../dom.ts";
import { formatTime } from "../format.ts";
import { messagePage } from "./message-page.ts";

/** The operator's page: every tenant, a new tenant, and a tenant admin token issued (and shown) once. */
export async function tenantsPage(context: Context): Promise<Page> {
  if (context.me.role !== "operator") return messagePage("Not found", "Only the operator manages tenants.");
  const { api } = context;
  const list = h("div", {});
  const issued = h("div", { class: "issued", "aria-live": "polite" });
  const problem = alertBox();

  const showTenants = (tenants: Tenant[]) =>
    fill(
      list,
      tenants.length === 0
        ? h("p", {}, "No tenants yet.")
        : dataTable("Tenants", ["Name", "ID", "Created", "Admin tokens"], tenants.map(tenantRow)),
    );

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
          { type: "button", class: "secondary", onclick: () => void issueToken(tenant) },
          `Issue admin token`,
          h("span", { class: "visually-hidden" }, ` for ${tenant.name}`),
        ),
        " ",
        h(
          "a",
          { href: paths.tokens(tenant.id), "data-link": true },
          "Tokens",
          h("span", { class: "visually-hidden" }, ` of ${tenant.name}`),
        ),
      ),
    );

  const issueToken = async (tenant: Tenant) => {
    problem.clear();
    try {
      const { token } = await api.issueToken(tenant.id);
      showIssuedToken(
        issued,
        `Admin token for ${tenant.name}`,
        token,
        "Shown once, now: resident keeps only a hash of it. Copy it and hand it to the tenant's admin.",
      );
    } catch (error) {
      problem.show(error instanceof ApiError ? error.message : String(error));
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
    h("h2", {}, "Create a tenant"),
    h("label", { for: "tenant-name" }, "Name"),
    name,
    h("div", { class: "actions" }, h("button", { type: "submit" }, "Create tenant")),
  );

  showTenants(await api.tenants());
  return {
    title: "Tenants",
    element: h("section", {}, h("h1", { tabindex: -1 }, "Tenants"), problem.element, issued, list, create),
  };
}
