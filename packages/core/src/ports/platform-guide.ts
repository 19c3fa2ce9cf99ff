import type { FailMode } from "../settings.ts";

/** One credential an admin gives for a workspace, as the admin console asks for it. */
export interface CredentialField {
  /** The key in the credentials object. */
  name: string;
  label: string;
  /** Shown while typed, never again: the console only says it is set. */
  secret: boolean;
  optional?: boolean;
  /** Several values (one per webhook, say), given as a list. */
  list?: boolean;
  /** The only values accepted, when there is a fixed set. */
  choices?: readonly string[];
  /** Where to find it, in the platform's own words. */
  help?: string;
}

/**
 * What a person needs to connect a workspace of one platform: the credentials asked for, the steps taken in the
 * platform, and what each fail mode costs there. The admin console renders its forms and help from this alone.
 */
export interface PlatformGuide {
  displayName: string;
  credentialFields: readonly CredentialField[];
  /** In order; "the webhook URL" is the workspace's URL, which the console shows next to them. */
  setupSteps: readonly string[];
  /** What happens to this platform's messages while Redis, or PostgreSQL, is down: in plain words. */
  outageBehaviour: string;
  /** What each fail mode costs; it applies only while Redis and PostgreSQL are both down. */
  failModeConsequences: Readonly<Record<FailMode, string>>;
}
