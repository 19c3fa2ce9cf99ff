import type { CredentialStore } from "../ports/credential-store.ts";

/** Credentials held in this process, locked per workspace by a chain of promises: one instance, and tests. */
export class MemoryCredentialStore implements CredentialStore {
  private readonly stored = new Map<string, unknown>();
  private readonly locks = new Map<string, Promise<unknown>>();

  set(workspaceId: string, credentials: unknown): this {
    this.stored.set(workspaceId, credentials);
    return this;
  }

  get<C>(workspaceId: string): C | undefined {
    return this.stored.get(workspaceId) as C | undefined;
  }

  change<C>(workspaceId: string, change: (stored: C) => Promise<C | undefined>): Promise<C> {
    const before = this.locks.get(workspaceId) ?? Promise.resolve();
    const run = before
      .catch(() => {})
      .then(async () => {
        if (!this.stored.has(workspaceId)) throw new Error(`no credentials stored for workspace ${workspaceId}`);
        const stored = this.stored.get(workspaceId) as C;
        const next = await change(stored);
        if (next === undefined) return stored;
        this.stored.set(workspaceId, next);
        return next;
      });
    this.locks.set(workspaceId, run);
    const forget = () => {
      if (this.locks.get(workspaceId) === run) this.locks.delete(workspaceId);
    };
    run.then(forget, forget);
    return run;
  }
}
