/** Counters shared by every instance, each kept for a while after its last add: LLM tokens per scope and day. */
export interface UsageMeter {
  /** Adds to each key's count and keeps the key `ttlMs` from now. */
  add(counts: { key: string; by: number }[], ttlMs: number): Promise<void>;
  /** The counts of the keys, in order; 0 for a key never counted (or expired). */
  read(keys: string[]): Promise<number[]>;
}
