import { randomBytes } from "node:crypto";

/*
 * Random, URL-safe (base64url) and free of ':' — workspace ids go into Redis keys as `event:<wsId>:…`.
 * 128 random bits, so ids cannot be guessed or enumerated from a webhook URL.
 */
const randomPart = () => randomBytes(16).toString("base64url");
const workspaceIdPattern = /^ws_[A-Za-z0-9_-]{22}$/;

export const newTenantId = () => `tn_${randomPart()}`;
export const newWorkspaceId = () => `ws_${randomPart()}`;
export const newTokenId = () => `tk_${randomPart()}`;
export const newToolServerId = () => `mcp_${randomPart()}`;

/** Lets the directory turn away a malformed id from a webhook URL without asking the database. */
export const isWorkspaceId = (id: string) => workspaceIdPattern.test(id);
