const utf8 = new TextDecoder();

/**
 * A fetch Response over an answer already read whole, for leanFetch: status, headers and the body as text, JSON,
 * bytes, a blob or (made on first use) a stream, read once as a Response's is. A Response builds a web stream for
 * its body as it is constructed, about 50 µs of CPU an answer that the SDKs then read whole anyway.
 */
export class BufferedResponse {
  readonly ok: boolean;
  readonly type = "basic";
  private used = false;
  private stream: ReadableStream<Uint8Array> | undefined;

  constructor(
    private readonly content: Uint8Array | null,
    readonly status: number,
    readonly statusText: string,
    readonly headers: Headers,
    readonly url: string,
    readonly redirected = false,
  ) {
    this.ok = status >= 200 && status < 300;
  }

  get bodyUsed(): boolean {
    return this.used;
  }

  /**
   * A byte stream that hands the body out on its first read. Made directly, not through a Response (half the cost):
   * the Anthropic SDK takes every answer's body, unread, as the key of a FinalizationRegistry.
   */
  get body(): ReadableStream<Uint8Array> | null {
    const content = this.content;
    if (content === null) return null;
    this.stream ??= new ReadableStream({
      type: "bytes",
      pull: (controller) => {
        this.used = true;
        // A copy: a byte stream takes over a chunk's buffer, and content may be a view of node's shared pool.
        if (content.byteLength > 0) controller.enqueue(new Uint8Array(content));
        controller.close();
      },
      cancel: () => {
        this.used = true;
      },
    });
    return this.stream;
  }

  async text(): Promise<string> {
    return utf8.decode(this.take());
  }

  async json(): Promise<unknown> {
    return JSON.parse(await this.text());
  }

  async bytes(): Promise<Uint8Array<ArrayBuffer>> {
    return new Uint8Array(this.take());
  }

  async arrayBuffer(): Promise<ArrayBuffer> {
    return (await this.bytes()).buffer;
  }

  async blob(): Promise<Blob> {
    return new Blob([await this.bytes()], { type: this.headers.get("content-type") ?? "" });
  }

  async formData(): Promise<FormData> {
    return new Response(await this.bytes(), { headers: this.headers }).formData();
  }

  clone(): BufferedResponse {
    if (this.unusable) throw new TypeError("Response.clone: Body has already been consumed.");
    return new BufferedResponse(this.content, this.status, this.statusText, this.headers, this.url, this.redirected);
  }

  /** Read, or its stream locked by a reader: as a Response's body, it cannot be read again. */
  private get unusable(): boolean {
    return this.used || this.stream?.locked === true;
  }

  private take(): Uint8Array {
    if (this.unusable) throw new TypeError("Body is unusable: Body has already been read");
    this.used = true;
    return this.content ?? new Uint8Array(0);
  }
}
