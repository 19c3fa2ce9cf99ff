import { h } from "../dom.ts";

/** A table of records: a caption, one column heading per field, and one row per record. */
export function dataTable(caption: string, headings: string[], rows: HTMLElement[]): HTMLElement {
  return h(
    "table",
    {},
    h("caption", {}, caption),
    h("thead", {}, h("tr", {}, ...headings.map((label) => h("th", { scope: "col" }, label)))),
    h("tbody", {}, ...rows),
  );
}
