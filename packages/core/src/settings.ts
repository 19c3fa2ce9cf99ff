import { z } from "zod";
import { plainText } from "./plain-text.ts";

export const failModes = ["open", "closed"] as const;
export type FailMode = (typeof failModes)[number];

const seconds = (max: number) => z.number().int().min(60).max(max);

/** What a tenant admin tunes per workspace. Everything is optional; `resolveSettings` fills the defaults. */
export const workspaceSettingsSchema = z
  .object({
    systemPrompt: plainText({ multiline: true }).max(20_000).optional(),
    model: plainText().min(1).max(200).optional(),
    failMode: z.enum(failModes).optional(),
    /** How long a delivery's `done` marker lives. Platforms retry for minutes and may redeliver later: default 24 h. */
    eventTtlSeconds: seconds(7 * 86_400).optional(),
    /** How long a reply's `sent` marker lives. */
    replyTtlSeconds: seconds(7 * 86_400).optional(),
    /** Whether answers stream into their message as they are written, where the platform can; default true. */
    streaming: z.boolean().optional(),
    /** Offered when someone opens a new assistant thread, where the platform has them (at most 4). */
    suggestedPrompts: z
      .array(
        z
          .object({ title: plainText().min(1).max(75), message: plainText({ multiline: true }).min(1).max(1_000) })
          .strict(),
      )
      .max(4)
      .optional(),
  })
  .strict();

export type WorkspaceSettingsInput = z.infer<typeof workspaceSettingsSchema>;

export interface WorkspaceSettings {
  systemPrompt: string;
  model: string;
  failMode: FailMode;
  eventTtlSeconds: number;
  replyTtlSeconds: number;
  streaming: boolean;
  suggestedPrompts: SuggestedPrompt[];
}

export interface SuggestedPrompt {
  /** What the button says. */
  title: string;
  /** What is sent as the user's message when it is clicked. */
  message: string;
}

export const defaultSystemPrompt =
  "You are a helpful member of staff who lives in this team's chat. Answer clearly and briefly, in the language of the question.";
export const defaultModel = "claude-sonnet-4-6";
export const defaultTtlSeconds = 86_400;

export function resolveSettings(input: WorkspaceSettingsInput, defaultFailMode: FailMode): WorkspaceSettings {
  return {
    systemPrompt: input.systemPrompt ?? defaultSystemPrompt,
    model: input.model ?? defaultModel,
    failMode: input.failMode ?? defaultFailMode,
    eventTtlSeconds: input.eventTtlSeconds ?? defaultTtlSeconds,
    replyTtlSeconds: input.replyTtlSeconds ?? defaultTtlSeconds,
    streaming: input.streaming ?? true,
    suggestedPrompts: input.suggestedPrompts ?? [],
  };
}
