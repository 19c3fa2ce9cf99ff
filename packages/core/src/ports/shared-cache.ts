/** Values shared by every instance for a short while (TTL): what is costly to fetch again, never a record. */
export interface SharedCache {
  get(key: string): Promise<string | undefined>;
  set(key: string, value: string, ttlMs: number): Promise<void>;
}
