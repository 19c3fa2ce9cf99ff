import type { FailMode } from "@resident/core";

/** The languages the admin console speaks. */
export type ConsoleLanguage = "en" | "ja";

/** One text in every language of the console, side by side; leaving a language out fails the typecheck. */
export type Translated = Readonly<Record<ConsoleLanguage, string>>;

/** One credential an admin gives for a workspace, as the admin console asks for it. */
export interface CredentialField {
  /** The key in the credentials object. */
  name: string;
  label: Translated;
  /** Shown while typed, never again: the console only says it is set. */
  secret: boolean;
  optional?: boolean;
  /** Several values (one per webhook, say), given as a list. */
  list?: boolean;
  /** The only values accepted, when there is a fixed set. */
  choices?: readonly string[];
  /** Where to find it, in the platform's own words (its own Japanese names for its screens, in Japanese). */
  help?: Translated;
}

/**
 * What a person needs to connect a workspace of one platform: the credentials asked for, the steps taken in the
 * platform, and what each fail mode costs there. The admin console renders its forms and help from this alone.
 */
export interface PlatformGuide {
  /** The product's own name, the same in every language. */
  displayName: string;
  credentialFields: readonly CredentialField[];
  /** In order; "the webhook URL" is the workspace's URL, which the console shows next to them. */
  setupSteps: readonly Translated[];
  /** What happens to this platform's messages while Redis, or PostgreSQL, is down: in plain words. */
  outageBehaviour: Translated;
  /** What each fail mode costs; it applies only while Redis and PostgreSQL are both down. */
  failModeConsequences: Readonly<Record<FailMode, Translated>>;
  /** What each entry of the bot identity `connect` learns is, for the console's connection panel. */
  identityLabels: Readonly<Record<string, Translated>>;
}
