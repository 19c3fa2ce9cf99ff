export type { TeamsCredentials } from "./credentials.ts";
export { teamsCredentialsSchema } from "./credentials.ts";
export { teamsGuide } from "./guide.ts";
export { TeamsAdapter, type TeamsAdapterOptions } from "./teams-adapter.ts";
