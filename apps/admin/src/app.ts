import { AdminApi, ApiError } from "@resident/admin-api";
import { describeProblem } from "./api-errors.ts";
import { base, type Context, type Page, paths } from "./context.ts";
import { fill } from "./dom.ts";
import { type ConsoleLanguage, chooseLanguage, language, text } from "./i18n/language.ts";
import { route } from "./routes.ts";
import { session } from "./session.ts";
import { layout } from "./views/layout.ts";
import { messagePage } from "./views/message-page.ts";
import { signInPage } from "./views/sign-in-page.ts";

/**
 * The console's shell: who is signed in, which page the path names, and moving between pages without reloading.
 * Links inside the console carry `data-link`; the browser's back and forward buttons work as usual.
 */
export class ConsoleApp {
  private context?: Context;
  private page?: Page;
  /** Bumped per render, so a slow page that resolves after the user moved on is dropped. */
  private renders = 0;

  constructor(private readonly root: HTMLElement) {}

  start(): void {
    document.documentElement.lang = language();
    window.addEventListener("popstate", () => void this.render());
    document.addEventListener("click", (event) => this.followLink(event));
    void this.render();
  }

  navigate = (path: string): void => {
    history.pushState(null, "", path);
    void this.render({ focus: true });
  };

  private async render(options: { focus?: boolean; notice?: string } = {}): Promise<void> {
    const render = ++this.renders;
    this.page?.dispose?.();
    this.page = undefined;
    const token = session.token();
    if (!token) return this.show(signInPage({ signIn: this.signIn, notice: options.notice }), options);
    try {
      this.context ??= await this.open(token);
      const path = location.pathname;
      if (path === base || path === paths.home()) return this.navigateHome(this.context);
      const view = route(path);
      const t = text().errors;
      const page = view ? await view(this.context) : messagePage(t.notFound, t.noPageHere);
      if (render !== this.renders) return page.dispose?.();
      this.show(page, options, this.context);
    } catch (error) {
      if (render !== this.renders) return;
      this.fail(error, options);
    }
  }

  private show(page: Page, options: { focus?: boolean }, context?: Context): void {
    this.page = page;
    document.title = text().shell.pageTitle(page.title);
    const shell = { context, signOut: () => this.signOut(), chooseLanguage: this.chooseLanguage };
    fill(this.root, layout(shell, page.element));
    if (options.focus) this.root.querySelector<HTMLElement>("h1")?.focus();
  }

  private fail(error: unknown, options: { focus?: boolean }): void {
    const t = text().errors;
    if (error instanceof ApiError && error.status === 401) {
      this.signOut(t.sessionEnded);
      return;
    }
    const page =
      error instanceof ApiError && error.status === 404
        ? messagePage(t.notFound, t.notYours)
        : messagePage(t.somethingWentWrong, describeProblem(error).message);
    this.show(page, options, this.context);
  }

  /** Every page is built in one language, so a new choice shows the page again (and the document says which). */
  private chooseLanguage = (chosen: ConsoleLanguage): void => {
    chooseLanguage(chosen);
    document.documentElement.lang = chosen;
    void this.render().then(() => this.root.querySelector<HTMLElement>(`.languages [lang="${chosen}"]`)?.focus());
  };

  private signIn = async (token: string): Promise<void> => {
    this.context = await this.open(token);
    session.signIn(token);
    this.navigateHome(this.context, true);
  };

  private signOut = (notice?: string): void => {
    session.signOut();
    this.context = undefined;
    history.replaceState(null, "", paths.home());
    void this.render({ focus: true, notice });
  };

  private async open(token: string): Promise<Context> {
    const api = new AdminApi(token);
    const [me, platforms] = await Promise.all([api.me(), api.platforms()]);
    return { api, me, platforms, navigate: this.navigate };
  }

  private navigateHome(context: Context, focus = false): void {
    const home = context.me.role === "operator" ? paths.tenants() : paths.tenant(context.me.tenantId);
    history.replaceState(null, "", home);
    void this.render({ focus });
  }

  private followLink(event: MouseEvent): void {
    if (event.defaultPrevented || event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey) return;
    const link = (event.target as Element | null)?.closest<HTMLAnchorElement>("a[data-link]");
    if (!link) return;
    event.preventDefault();
    this.navigate(link.pathname);
  }
}
