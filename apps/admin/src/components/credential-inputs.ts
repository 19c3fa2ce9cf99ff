import type { CredentialField } from "@resident/admin-api";
import { h, uniqueId } from "../dom.ts";
import { text, translated } from "../i18n/language.ts";

export interface CredentialInputs {
  element: HTMLElement;
  /** What was typed, ready for the API: empty optional fields left out, lists without blanks. */
  values(): Record<string, string | string[]>;
  setEnabled(enabled: boolean): void;
}

/**
 * The inputs a platform's guide asks for. Secrets are password fields that start empty every time: the console
 * never receives a stored credential, so it can only take new ones.
 */
export function credentialInputs(fields: readonly CredentialField[]): CredentialInputs {
  const t = text().form;
  const controls: HTMLElement[] = [];
  const readers: [string, () => string | string[] | undefined][] = [];

  const input = (field: CredentialField, label: string, describedBy?: string) => {
    const id = uniqueId(`credential-${field.name}`);
    const control = field.choices
      ? h(
          "select",
          { id, name: field.name, "aria-describedby": describedBy },
          h("option", { value: "" }, t.notSet),
          ...field.choices.map((choice) => h("option", { value: choice }, choice)),
        )
      : h("input", {
          id,
          name: field.name,
          type: field.secret ? "password" : "text",
          // Keeps browsers from offering a saved sign-in password for a platform's secret.
          autocomplete: field.secret ? "new-password" : "off",
          spellcheck: "false",
          required: !field.optional,
          "aria-describedby": describedBy,
        });
    controls.push(control);
    return { control, label: h("label", { for: id }, label) };
  };

  const parts = fields.map((field) => {
    const helpId = field.help ? uniqueId(`help-${field.name}`) : undefined;
    const help = field.help && h("p", { id: helpId, class: "help" }, translated(field.help));
    const name = translated(field.label);
    const label = field.optional ? t.optional(name) : name;
    if (!field.list) {
      const { control, label: labelElement } = input(field, label, helpId);
      readers.push([field.name, () => (control as HTMLInputElement).value.trim() || undefined]);
      return h("div", { class: "field" }, labelElement, help, control);
    }
    const items = h("div", { class: "list-items" });
    const entries: HTMLInputElement[] = [];
    const add = () => {
      const { control, label: labelElement } = input(field, t.listItem(name, entries.length + 1), helpId);
      if (entries.length > 0) (control as HTMLInputElement).required = false;
      entries.push(control as HTMLInputElement);
      items.append(h("div", { class: "field" }, labelElement, control));
      return control;
    };
    add();
    readers.push([field.name, () => entries.map((entry) => entry.value.trim()).filter((value) => value !== "")]);
    const another = h("button", { type: "button", class: "secondary", onclick: () => add().focus() }, t.addAnother);
    controls.push(another);
    return h("fieldset", { class: "list" }, h("legend", {}, label), help, items, another);
  });

  return {
    element: h("div", {}, ...parts),
    values() {
      const values: Record<string, string | string[]> = {};
      for (const [name, read] of readers) {
        const value = read();
        if (value !== undefined) values[name] = value;
      }
      return values;
    },
    setEnabled(enabled) {
      for (const control of controls) (control as HTMLInputElement | HTMLButtonElement).disabled = !enabled;
    },
  };
}
