import type { Page } from "../context.ts";
import { h } from "../dom.ts";

export function messagePage(title: string, message: string): Page {
  return { title, element: h("section", {}, h("h1", { tabindex: -1 }, title), h("p", {}, message)) };
}
