import { describeProblem } from "../api-errors.ts";
import { fill, h } from "../dom.ts";
import { text } from "../i18n/language.ts";

/** How often live numbers are read again; stats are flushed cluster-wide every second. */
const refreshEveryMs = 2_000;

export interface LivePanel {
  element: HTMLElement;
  /** Reads and renders now (after a change the user made). */
  refresh(): Promise<void>;
  dispose(): void;
}

/**
 * A region re-rendered from the API every few seconds while its page is shown. It is not an aria-live region: a
 * screen reader would otherwise read every refresh aloud.
 */
export async function livePanel<T>(load: () => Promise<T>, render: (value: T) => Node): Promise<LivePanel> {
  const element = h("div", { class: "live" });
  let stopped = false;
  let running: Promise<void> | undefined;
  const show = (content: Node) => {
    if (!stopped) fill(element, content);
  };
  const refresh = (): Promise<void> => {
    running ??= load()
      .then(
        (value) => show(render(value)),
        (error: unknown) =>
          show(h("p", { class: "error-text" }, text().errors.notRefreshed(describeProblem(error).message))),
      )
      .finally(() => {
        running = undefined;
      });
    return running;
  };
  await refresh();
  const timer = setInterval(() => void refresh(), refreshEveryMs);
  return {
    element,
    refresh,
    dispose() {
      stopped = true;
      clearInterval(timer);
    },
  };
}
