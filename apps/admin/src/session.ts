const key = "resident.adminToken";

/**
 * The admin token lives in this tab's sessionStorage only: gone when the tab closes, never in a URL, a cookie or
 * localStorage, and sent only in the Authorization header.
 */
export const session = {
  token(): string | undefined {
    return sessionStorage.getItem(key) ?? undefined;
  },
  signIn(token: string): void {
    sessionStorage.setItem(key, token);
  },
  signOut(): void {
    sessionStorage.removeItem(key);
  },
};
