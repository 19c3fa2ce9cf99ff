/** What ingest answers the platform: a status, a body, and headers such as Retry-After. */
export interface IngestResponse {
  status: number;
  body: unknown;
  headers?: Record<string, string>;
}

export const ok = (body: unknown = { ok: true }): IngestResponse => ({ status: 200, body });
export const refuse = (status: number, error: string): IngestResponse => ({ status, body: { error } });
export const retryLater = (error: string): IngestResponse => ({
  ...refuse(503, error),
  headers: { "retry-after": "5" },
});
