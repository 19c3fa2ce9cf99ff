import type { AdminApi, Me, PlatformView } from "@resident/admin-api";

/** What every page of a signed-in session gets. */
export interface Context {
  api: AdminApi;
  me: Me;
  platforms: PlatformView[];
  navigate(path: string): void;
}

/** A rendered page; `dispose` stops what it keeps running (polling). */
export interface Page {
  title: string;
  element: HTMLElement;
  dispose?(): void;
}

export const base = "/admin";

export const paths = {
  home: () => `${base}/`,
  tenants: () => `${base}/tenants`,
  tenant: (tenantId: string) => `${base}/tenants/${tenantId}`,
  newWorkspace: (tenantId: string, platform: string) => `${base}/tenants/${tenantId}/workspaces/new/${platform}`,
  workspace: (tenantId: string, id: string) => `${base}/tenants/${tenantId}/workspaces/${id}`,
  editWorkspace: (tenantId: string, id: string) => `${base}/tenants/${tenantId}/workspaces/${id}/edit`,
  audit: (tenantId: string) => `${base}/tenants/${tenantId}/audit`,
  tokens: (tenantId: string) => `${base}/tenants/${tenantId}/tokens`,
  budget: (tenantId: string) => `${base}/tenants/${tenantId}/budget`,
};

export function platformOf(context: Context, platform: string): PlatformView | undefined {
  return context.platforms.find((view) => view.platform === platform);
}
