import { describeProblem } from "../api-errors.ts";
import { h } from "../dom.ts";
import type { alertBox } from "./alert-box.ts";

type Child = Parameters<typeof h>[2];

/** A form in a card whose submission runs `submit`; what the API refuses is shown in `problem`, in the catalogue's words. */
export function cardForm(
  problem: ReturnType<typeof alertBox>,
  submit: () => Promise<void>,
  ...children: Child[]
): HTMLFormElement {
  return h(
    "form",
    {
      class: "card",
      onsubmit: async (event: Event) => {
        event.preventDefault();
        problem.clear();
        try {
          await submit();
        } catch (error) {
          problem.show(describeProblem(error));
        }
      },
    },
    ...children,
  );
}
