import { ApiError } from "../api.ts";
import type { Tenant, TokenRecord } from "../api-types.ts";
import { alertBox } from "../components/alert-box.ts";
import { cardForm } from "../components/card-form.ts";
import { dataTable } from "../components/data-table.ts";
import { showIssuedToken } from "../components/issued-token.ts";
import type { Context, Page } from "../context.ts";
import { fill, h } from "../dom.ts";
import { formatTime } from "../format.ts";
import { tenantName } from "./tenant-name.ts";

/**
 * A tenant's admin tokens: each by name and first characters (never the secret), when it was made, last used and
 * expires, and a way to revoke it. A new token is shown once; the operator decides whether the tenant's admins may
 * issue tokens themselves.
 */
export async function tokensPage(context: Context, tenantId: string): Promise<Page> {
  const { api, me } = context;
  const [name, tokens, tenant] = await Promise.all([
    tenantName(context, tenantId),
    api.tokens(tenantId),
    me.role === "operator" ? api.tenant(tenantId) : undefined,
  ]);
  const title = `Admin tokens of ${name}`;
  const problem = alertBox();
  const issued = h("div", { class: "issued", "aria-live": "polite" });
  const list = h("div", {});
  const failed = (error: unknown) =>
    problem.show(error instanceof ApiError ? error.message : String(error), (error as ApiError).issues);
  const refresh = async () => showTokens(await api.tokens(tenantId));

  const showTokens = (records: TokenRecord[]) =>
    fill(
      list,
      records.length === 0
        ? h("p", {}, "This tenant has no admin tokens.")
        : dataTable(
            "Admin tokens",
            ["Name", "Starts with", "Created", "Last used", "Expires", ""],
            records.map(tokenRow),
          ),
    );

  const tokenRow = (token: TokenRecord) => {
    const confirm = h("div", { class: "confirm", hidden: true });
    const ask = h(
      "button",
      { type: "button", class: "danger" },
      "Revoke",
      h("span", { class: "visually-hidden" }, ` ${token.name}`),
    );
    ask.addEventListener("click", () => {
      const yes = h("button", { type: "button", class: "danger" }, `Revoke ${token.name}`);
      const no = h("button", { type: "button", class: "secondary" }, "Cancel");
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
      fill(
        confirm,
        h("p", { role: "alert" }, `Revoke ${token.name}? Whoever uses it is signed out at once, on every instance.`),
        yes,
        no,
      );
      confirm.hidden = false;
      no.focus();
    });
    const yours = me.role === "tenant" && me.tokenId === token.tokenId;
    return h(
      "tr",
      {},
      h("th", { scope: "row" }, token.name, yours && h("span", { class: "help" }, " (this session)")),
      h("td", {}, h("code", {}, `${token.start}…`)),
      h("td", {}, formatTime(token.createdAt)),
      h("td", {}, token.lastUsedAt ? formatTime(token.lastUsedAt) : "never"),
      h("td", {}, token.expiresAt ? formatTime(token.expiresAt) : "never"),
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
      showIssuedToken(
        issued,
        "New admin token",
        token,
        "Shown once, now: resident keeps only a hash of it, and this page forgets it when you press Done.",
      );
      await refresh();
    },
    h("h2", {}, "Issue a token"),
    h("label", { for: "token-name" }, "Token name"),
    tokenName,
    h("label", { for: "token-expires" }, "Expires (optional)"),
    h(
      "p",
      { id: "expires-help", class: "help" },
      "At the end of this day. Leave empty for a token that never expires.",
    ),
    expires,
    h("div", { class: "actions" }, h("button", { type: "submit" }, "Issue token")),
  );

  showTokens(tokens);
  return {
    title,
    element: h(
      "section",
      {},
      h("h1", { tabindex: -1 }, title),
      h("p", {}, "Tokens are listed by name and their first characters; the rest is never shown again."),
      problem.element,
      tenant && issuingSetting(context, tenant, failed),
      issued,
      list,
      mayIssue
        ? issue
        : h("p", {}, "Ask the operator for another token: only the operator issues them for this tenant."),
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
    h(
      "div",
      { class: "choice" },
      allowed,
      h("label", { for: "admins-issue" }, "This tenant's admins may issue tokens"),
    ),
  );
}
