import { fill, h } from "../dom.ts";
import { text } from "../i18n/language.ts";
import { copyField } from "./copy-field.ts";

/**
 * A token just issued, shown this once inside `place`: copyable, and gone from the page when the admin says Done —
 * resident keeps only its hash, so nothing can ever show it again.
 */
export function showIssuedToken(place: HTMLElement, title: string, token: string, help: string): void {
  const t = text().tenants;
  const done = h("button", { type: "button", class: "secondary", onclick: () => fill(place) }, t.done);
  fill(
    place,
    h(
      "section",
      { class: "card notice", "aria-labelledby": "issued-title" },
      h("h2", { id: "issued-title" }, title),
      copyField(t.tokenLabel, token, { name: "issued-token", help }),
      h("div", { class: "actions" }, done),
    ),
  );
  done.focus();
}
