import {
  type DailyFeedback,
  type FeedbackClick,
  FeedbackIntake,
  type FeedbackLedger,
  recentDays,
  utcDay,
} from "../src/index.ts";

/** PgFeedbackLedger's rule in memory: one vote per person and answer, a click kept only when it is later. */
export class MemoryFeedbackLedger implements FeedbackLedger {
  readonly votes = new Map<string, FeedbackClick>();
  /** How many times `record` was called, kept or not. */
  writes = 0;
  failing = false;

  async record(click: FeedbackClick): Promise<boolean> {
    this.writes++;
    if (this.failing) throw new Error("database refused the write");
    const key = `${click.workspaceId}:${click.messageId}:${click.userId}`;
    const standing = this.votes.get(key);
    const later =
      !standing ||
      standing.clickedAt < click.clickedAt ||
      (standing.clickedAt === click.clickedAt && standing.clickId < click.clickId);
    if (later) this.votes.set(key, click);
    return later;
  }

  async daily(workspaceId: string, days: number, now: number): Promise<DailyFeedback[]> {
    return recentDays(now, days).map((day) => {
      const cast = [...this.votes.values()].filter((v) => v.workspaceId === workspaceId && utcDay(v.clickedAt) === day);
      const count = (vote: string) => cast.filter((v) => v.vote === vote).length;
      return { day, positive: count("positive"), negative: count("negative") };
    });
  }
}

/** A feedback intake over a memory ledger and no gate: for pipeline tests that never see a click. */
export function unusedFeedback(): FeedbackIntake {
  return new FeedbackIntake([], new MemoryFeedbackLedger());
}
