import { h, uniqueId } from "../dom.ts";
import { text } from "../i18n/language.ts";

/**
 * A value to copy into another system (a webhook URL, a token shown once): a read-only field that can also be
 * selected by hand, and a button that copies it and says so.
 */
export function copyField(label: string, value: string, options: { help?: string; name?: string } = {}): HTMLElement {
  const t = text().copy;
  const id = uniqueId("copy");
  const helpId = options.help ? `${id}-help` : undefined;
  const input = h("input", {
    id,
    name: options.name,
    type: "text",
    readonly: true,
    value,
    class: "copy-value",
    "aria-describedby": helpId,
  });
  const status = h("span", { class: "copy-status", role: "status" });
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(value);
    } catch {
      // Without clipboard access (a page not in a secure context), select it for Ctrl+C.
      input.select();
      status.textContent = t.selected;
      return;
    }
    status.textContent = t.copied;
  };
  return h(
    "div",
    { class: "copy-field" },
    h("label", { for: id }, label),
    options.help && h("p", { id: helpId, class: "help" }, options.help),
    h("div", { class: "copy-row" }, input, h("button", { type: "button", onclick: () => void copy() }, t.copy), status),
  );
}
