export { TeamsAdapter, type TeamsAdapterOptions } from "./adapter.ts";
export type { TeamsCredentials } from "./credentials.ts";
export { teamsCredentialsSchema } from "./credentials.ts";
export { teamsPlatform } from "./platform.ts";
