/**
 * The cluster's one authority on a workspace's stored credentials, for a change that must happen once however many
 * instances want it at the same moment: a rotating token's refresh, whose refresh token the platform honours once.
 * `change` runs while the workspace is locked against every other `change` of it, on any instance; it sees the
 * credentials as last stored and returns what to store instead, or undefined to keep them. A holder that dies lets
 * go of the lock with its connection, so no one waits long behind a dead instance. The stored change reaches every
 * instance's cache of the workspace.
 */
export interface CredentialStore {
  change<C>(workspaceId: string, change: (stored: C) => Promise<C | undefined>): Promise<C>;
}
