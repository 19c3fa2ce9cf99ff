import type { StatCounts, StatRange, WorkspaceActivity } from "@resident/core";

export interface SeriesResolution {
  bucketMs: number;
  /** Buckets drawn: the range. */
  buckets: number;
  /** How long a bucket is kept; past the range drawn, so a late flush or a skewed clock still finds its bucket. */
  keepMs: number;
}

const hourMs = 3_600_000;

/** The hour is drawn by the minute (kept ~25 h), the day by the hour (kept ~8 days). */
export const seriesResolutions: Record<StatRange, SeriesResolution> = {
  hour: { bucketMs: 60_000, buckets: 60, keepMs: 25 * hourMs },
  day: { bucketMs: hourMs, buckets: 24, keepMs: 8 * 24 * hourMs },
};

export function bucketStart(at: number, range: StatRange): number {
  const { bucketMs } = seriesResolutions[range];
  return Math.floor(at / bucketMs) * bucketMs;
}

/** The start of every bucket of the range, oldest first; the last one holds `now`. */
export function seriesBuckets(range: StatRange, now: number): number[] {
  const { bucketMs, buckets } = seriesResolutions[range];
  const last = bucketStart(now, range);
  return Array.from({ length: buckets }, (_, i) => last - (buckets - 1 - i) * bucketMs);
}

/** The newer of each moment in two activity records. */
export function latestActivity(a: WorkspaceActivity, b: WorkspaceActivity = {}): WorkspaceActivity {
  const merged: WorkspaceActivity = {};
  const lastEventAt = Math.max(a.lastEventAt ?? 0, b.lastEventAt ?? 0);
  const lastReplyAt = Math.max(a.lastReplyAt ?? 0, b.lastReplyAt ?? 0);
  const lastError = (b.lastError?.at ?? 0) > (a.lastError?.at ?? 0) ? b.lastError : a.lastError;
  if (lastEventAt) merged.lastEventAt = lastEventAt;
  if (lastReplyAt) merged.lastReplyAt = lastReplyAt;
  if (lastError) merged.lastError = lastError;
  return merged;
}

export function addCounts(into: StatCounts, counts: Partial<StatCounts>): void {
  for (const [counter, by] of Object.entries(counts) as [keyof StatCounts, number | undefined][]) {
    if (by) into[counter] += by;
  }
}
