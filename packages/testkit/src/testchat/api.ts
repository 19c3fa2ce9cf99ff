/** Testchat's HTTP API: bearer-token JSON calls below one base URL, one attempt each. */
export class TestchatApi {
  constructor(
    private readonly apiUrl: string,
    private readonly timeoutMs: number,
  ) {}

  call(apiToken: string, method: "GET" | "POST", path: string, body?: object): Promise<Response> {
    return fetch(`${this.apiUrl}${path}`, {
      method,
      headers: { authorization: `Bearer ${apiToken}`, "content-type": "application/json" },
      body: body && JSON.stringify(body),
      signal: AbortSignal.timeout(this.timeoutMs),
    });
  }
}
