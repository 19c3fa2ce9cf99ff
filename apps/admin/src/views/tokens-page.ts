import type { Tenant, TokenRecord } from "@resident/admin-api";
import { describeProblem } from "../api-errors.ts";
import { alertBox } from "../components/alert-box.ts";
import { cardForm } from "../components/card-form.ts";
import { dataTable } from "../components/data-table.ts";
import { showIssuedToken } from "../components/issued-token.ts";
import type { Context, Page } from "../context.ts";
import { fill, h } from "../dom.ts";
import { formatTime } from "../format.ts";
import { text } from "../i18n/language.ts";
import { tenantName } from "./tenant-name.ts";

/**
 * A tenant's admin tokens: each by name and first characters (never the secret), when it was made, last used and
 * expires, and a way to revoke it. A new token is shown once; the operator decides whether the tenant's admins may
 * issue tokens themselves.
 */
export async function tokensPage(context: Context, tenantId: string): Promise<Page> {
  const t = text().tokens;
  const c = t.columns;
  const { api, me } = context;
  const [name, tokens, tenant] = await Promise.all([
    tenantName(context, tenantId),
    api.tokens(tenantId),
    me.role === "operator" ? api.tenant(tenantId) : undefined,
  ]);
  const title = t.title(name);
  const problem = alertBox();
  const issued = h("div", { class: "issued", "aria-live": "polite" });
  const list = h("div", {});
  const failed = (error: unknown) => problem.show(describeProblem(error));
  const refresh = async () => showTokens(await api.tokens(tenantId));

  const showTokens = (records: TokenRecord[]) =>
    fill(
      list,
      records.length === 0
        ? h("p", {}, t.none)
        : dataTable(t.caption, [c.name, c.start, c.created, c.lastUsed, c.expires, c.actions], records.map(tokenRow)),
    );

  const tokenRow = (token: TokenRecord) => {
    const confirm = h("div", { class: "confirm", hidden: true });
    const ask = h("button", { type: "button", class: "danger", "aria-label": t.revokeNamed(token.name) }, t.revoke);
    ask.addEventListener("click", () => {
      const yes = h("button", { type: "button", class: "danger" }, t.revokeNamed(token.name));
      const no = h("button", { type: "button", class: "secondary" }, t.cancel);
      yes.addEventListener("click", async () => {
        problem.clear();
        try {
          await api.revokeToken(tenantId, token.tokenId);
          await refresh();
        } catch (error) {
          failed(error);
        }
      });
      no.addEventListener("click", () => {
        confirm.hidden = true;
        ask.focus();
      });
      fill(confirm, h("p", { role: "alert" }, t.confirmRevoke(token.name)), yes, no);
      confirm.hidden = false;
      no.focus();
    });
    const yours = me.role === "tenant" && me.tokenId === token.tokenId;
    return h(
      "tr",
      {},
      h("th", { scope: "row" }, token.name, yours && h("span", { class: "help" }, " ", t.thisSession)),
      h("td", {}, h("code", {}, `${token.start}…`)),
      h("td", {}, formatTime(token.createdAt)),
      h("td", {}, token.lastUsedAt ? formatTime(token.lastUsedAt) : t.neverUsed),
      h("td", {}, token.expiresAt ? formatTime(token.expiresAt) : t.noExpiry),
      h("td", {}, ask, confirm),
    );
  };

  const mayIssue = me.role === "operator" || me.mayIssueTokens;
  const tokenName = h("input", { id: "token-name", name: "name", required: true, maxlength: 100, autocomplete: "off" });
  const expires = h("input", {
    id: "token-expires",
    name: "expires",
    type: "date",
    "aria-describedby": "expires-help",
  });
  const issue = cardForm(
    problem,
    async () => {
      // The chosen day's end, in the admin's own time zone.
      const expiresAt = expires.value ? new Date(`${expires.value}T23:59:59`).toISOString() : undefined;
      const { token } = await api.issueToken(tenantId, { name: tokenName.value.trim(), expiresAt });
      tokenName.value = "";
      expires.value = "";
      showIssuedToken(issued, t.newToken, token, t.newTokenHelp);
      await refresh();
    },
    h("h2", {}, t.issueTitle),
    h("label", { for: "token-name" }, t.nameLabel),
    tokenName,
    h("label", { for: "token-expires" }, t.expiresLabel),
    h("p", { id: "expires-help", class: "help" }, t.expiresHelp),
    expires,
    h("div", { class: "actions" }, h("button", { type: "submit" }, t.issueButton)),
  );

  showTokens(tokens);
  return {
    title,
    element: h(
      "section",
      {},
      h("h1", { tabindex: -1 }, title),
      h("p", {}, t.intro),
      problem.element,
      tenant && issuingSetting(context, tenant, failed),
      issued,
      list,
      mayIssue ? issue : h("p", {}, t.askOperator),
    ),
  };
}

/** The operator's choice of whether this tenant's own admins may issue tokens. */
function issuingSetting(context: Context, tenant: Tenant, failed: (error: unknown) => void): HTMLElement {
  const allowed = h("input", { id: "admins-issue", type: "checkbox", checked: tenant.adminsMayIssueTokens });
  allowed.addEventListener("change", async () => {
    try {
      await context.api.updateTenant(tenant.id, { adminsMayIssueTokens: allowed.checked });
    } catch (error) {
      allowed.checked = !allowed.checked;
      failed(error);
    }
  });
  return h(
    "div",
    { class: "card" },
    h("div", { class: "choice" }, allowed, h("label", { for: "admins-issue" }, text().tokens.adminsMayIssue)),
  );
}
