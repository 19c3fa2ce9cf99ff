type Child = Node | string | number | false | null | undefined;
type Attributes = Record<string, string | number | boolean | undefined | ((event: Event) => void)>;

/**
 * Builds an element. Text always goes in as text, never as markup, so nothing a server or a user typed can become
 * HTML; `on…` attributes take listeners (the CSP forbids inline handlers anyway). `false`/`undefined` attributes and
 * children are left out, which keeps optional parts inline.
 */
export function h<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attributes: Attributes = {},
  ...children: Child[]
): HTMLElementTagNameMap[K] {
  const element = document.createElement(tag);
  setAttributes(element, attributes);
  element.append(...nodes(children));
  return element;
}

const svgNamespace = "http://www.w3.org/2000/svg";

export function svg(tag: string, attributes: Attributes = {}, ...children: Child[]): SVGElement {
  const element = document.createElementNS(svgNamespace, tag);
  setAttributes(element, attributes);
  element.append(...nodes(children));
  return element;
}

/** Replaces everything inside `parent`. */
export function fill(parent: Element, ...children: Child[]): void {
  parent.replaceChildren(...nodes(children));
}

let nextId = 0;
/** A document-unique id, for label/aria wiring. */
export function uniqueId(prefix: string): string {
  nextId += 1;
  return `${prefix}-${nextId}`;
}

function setAttributes(element: Element, attributes: Attributes): void {
  for (const [name, value] of Object.entries(attributes)) {
    if (value === undefined || value === false) continue;
    if (typeof value === "function") element.addEventListener(name.slice(2).toLowerCase(), value);
    else element.setAttribute(name, value === true ? "" : String(value));
  }
}

function nodes(children: Child[]): (Node | string)[] {
  return children.flatMap((child) =>
    child === false || child === null || child === undefined ? [] : [typeof child === "number" ? String(child) : child],
  );
}
