import type { AgentJournal, ToolCallRun, ToolOutcome } from "@resident/core";

/** A journal for one attempt only, for callers that keep no recovery points (a direct call, a test of the agent). */
export class TransientJournal implements AgentJournal {
  private readonly steps = new Map<number, string>();
  private readonly calls = new Map<string, ToolOutcome>();

  async step(step: number): Promise<string | undefined> {
    return this.steps.get(step);
  }

  async keepStep(step: number, turn: string): Promise<string> {
    if (!this.steps.has(step)) this.steps.set(step, turn);
    return this.steps.get(step) as string;
  }

  async call(step: number, index: number, run: ToolCallRun): Promise<{ outcome: ToolOutcome; replayed: boolean }> {
    const key = `${step}:${index}`;
    const kept = this.calls.get(key);
    if (kept) return { outcome: kept, replayed: true };
    const outcome = await run(`transient-${key}-${Date.now()}`);
    this.calls.set(key, outcome);
    return { outcome, replayed: false };
  }
}
