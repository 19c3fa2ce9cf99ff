import type { ProblemText } from "../api-errors.ts";
import { fill, h } from "../dom.ts";

/** A place for one error message, announced by screen readers when it appears. */
export function alertBox() {
  const element = h("div", { class: "alert", role: "alert", hidden: true });
  return {
    element,
    show({ message, details }: ProblemText): void {
      fill(element, h("p", {}, message), details.length > 0 && h("ul", {}, ...details.map((d) => h("li", {}, d))));
      element.hidden = false;
    },
    clear(): void {
      fill(element);
      element.hidden = true;
    },
  };
}
