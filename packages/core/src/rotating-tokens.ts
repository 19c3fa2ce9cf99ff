import { PermanentSendError } from "./errors.ts";
import type { CredentialStore } from "./ports/credential-store.ts";
import type { Workspace } from "./ports/tenant-directory.ts";

/** A token as a platform's credentials hold it. */
export interface HeldToken {
  value: string;
  /** When it stops working (epoch ms); absent: it does not expire. */
  expiresAt?: number;
  /** Whether the credentials hold what it takes to get a new one (a refresh token). */
  refreshable: boolean;
}

/** What a platform says about its rotating tokens. */
export interface TokenRotation<C> {
  token(credentials: C): HeldToken;
  /**
   * Spends the refresh token in `credentials` for a new token set and resolves to the credentials that hold it.
   * Rejects with a send error: permanent when the platform refused the refresh (the refresh token is spent or
   * revoked: the install is broken until it is done again), retryable when the platform could not be asked.
   */
  refresh(credentials: C): Promise<C>;
}

export interface RotatingTokensOptions<C> {
  store: CredentialStore;
  rotation: TokenRotation<C>;
  /** How long before its expiry a token is refreshed; default 5 minutes. */
  marginMs?: number;
  now?: () => number;
}

/**
 * Hands out a workspace's token, refreshed before it expires, with one refresh per token across the cluster: in
 * this process one refresh per workspace is in flight and every caller joins it; across instances the store's lock
 * lets one refresh while the others wait, and each of them, once inside, finds the token fresh and keeps it.
 * A refresh token is honoured once (platforms that rotate tokens refuse a second use), so two refreshes would leave
 * a broken install. The freshest token seen here is remembered, because the workspace a
 * caller holds may have been read before another instance's refresh reached this instance's cache.
 */
export class RotatingTokens<C> {
  /** Per workspace: the token a refresh replaced, and the credentials that replaced it. */
  private readonly replaced = new Map<string, { token: string; by: C }>();
  private readonly inFlight = new Map<string, Promise<C>>();
  private readonly marginMs: number;
  private readonly now: () => number;

  constructor(private readonly options: RotatingTokensOptions<C>) {
    this.marginMs = options.marginMs ?? 5 * 60_000;
    this.now = options.now ?? Date.now;
  }

  /** The token to call the platform with: the held one while it has more than the margin left, else a fresh one. */
  async token(workspace: Workspace<C>): Promise<string> {
    const held = this.options.rotation.token(this.newest(workspace));
    if (!this.due(held)) return held.value;
    let stored: C;
    try {
      stored = await this.rotate(workspace.id, (current) => this.due(this.options.rotation.token(current)));
    } catch (error) {
      // The platform could not be asked, and the token still works: use it, and refresh on the next call. A
      // refusal is not waited out: the refresh token is dead, and the workspace's last error must say so now.
      if (!(error instanceof PermanentSendError) && (held.expiresAt ?? 0) > this.now()) return held.value;
      throw error;
    }
    return this.remember(workspace, stored);
  }

  /**
   * The platform refused `refused` as expired or invalid before its time: refreshes it (unless another caller
   * already has) and resolves to the token to try once more with, or undefined when there is none.
   */
  async refused(workspace: Workspace<C>, refused: string): Promise<string | undefined> {
    const { rotation } = this.options;
    if (!rotation.token(this.newest(workspace)).refreshable) return undefined;
    const running = this.inFlight.get(workspace.id);
    if (running) {
      const fresh = this.remember(workspace, await running);
      if (fresh !== refused) return fresh;
    }
    const stored = await this.rotate(workspace.id, (current) => {
      const token = rotation.token(current);
      return token.value === refused || this.due(token);
    });
    const fresh = this.remember(workspace, stored);
    return fresh === refused ? undefined : fresh;
  }

  private due(token: HeldToken): boolean {
    return token.refreshable && token.expiresAt !== undefined && token.expiresAt - this.now() <= this.marginMs;
  }

  /** One change in flight per workspace in this process; the store's lock makes it one across the cluster. */
  private rotate(workspaceId: string, due: (stored: C) => boolean): Promise<C> {
    const running = this.inFlight.get(workspaceId);
    if (running) return running;
    const { store, rotation } = this.options;
    const run = store
      .change<C>(workspaceId, (stored) => (due(stored) ? rotation.refresh(stored) : Promise.resolve(undefined)))
      .finally(() => this.inFlight.delete(workspaceId));
    this.inFlight.set(workspaceId, run);
    return run;
  }

  /** Remembers what replaced the workspace's token, for callers whose copy of the workspace predates it. */
  private remember(workspace: Workspace<C>, stored: C): string {
    const { rotation } = this.options;
    const held = rotation.token(workspace.credentials).value;
    const fresh = rotation.token(stored).value;
    if (fresh !== held) this.replaced.set(workspace.id, { token: held, by: stored });
    return fresh;
  }

  /** The workspace's credentials, unless a refresh seen here replaced their token: then what replaced it. */
  private newest(workspace: Workspace<C>): C {
    const replaced = this.replaced.get(workspace.id);
    if (!replaced) return workspace.credentials;
    if (this.options.rotation.token(workspace.credentials).value === replaced.token) return replaced.by;
    // The workspace has caught up with the refresh, or its credentials were changed since: its own are the truth.
    this.replaced.delete(workspace.id);
    return workspace.credentials;
  }
}
