/**
 * Per-token incremental decoding for the chat worker, with reasoning detection by token id.
 * Pure (no transformers.js import) so it is unit-tested in Node with a fake decoder.
 *
 * transformers.js' TextStreamer only flushes its text callback at word boundaries; this one emits
 * text after every token, holding back only an incomplete UTF-8 sequence (U+FFFD at the end).
 */
export type Channel = 'answer' | 'thinking';

export interface StreamerOptions {
  decode: (ids: bigint[]) => string;
  /** Token ids that open / close a reasoning block (DeepSeek R1 `<think>` / `</think>`). */
  thinkOpenId?: bigint | undefined;
  thinkCloseId?: bigint | undefined;
  /** Called for each decoded piece of text. */
  onText: (text: string, channel: Channel) => void;
  /** Called once per generated token (before its text, if any). */
  onToken: () => void;
}

export class TokenTextStreamer {
  private segment: bigint[] = [];
  private printed = 0;
  private promptSeen = false;
  channel: Channel = 'answer';

  constructor(private readonly options: StreamerOptions) {}

  /** Called by generate(): first with the prompt ids, then once per step with the new token. */
  put(value: bigint[][]): void {
    const ids = value[0] ?? [];
    if (!this.promptSeen) {
      this.promptSeen = true;
      // Templates such as DeepSeek R1's end the prompt with `<think>`: start in reasoning then.
      const { thinkOpenId, thinkCloseId } = this.options;
      for (const id of ids) {
        if (id === thinkOpenId) this.channel = 'thinking';
        else if (id === thinkCloseId) this.channel = 'answer';
      }
      return;
    }
    for (const id of ids) this.push(id);
  }

  end(): void {
    this.flush(true);
  }

  private push(id: bigint): void {
    const { thinkOpenId, thinkCloseId } = this.options;
    if (id === thinkOpenId || id === thinkCloseId) {
      this.flush(true);
      this.channel = id === thinkOpenId ? 'thinking' : 'answer';
      this.options.onToken();
      return;
    }
    this.segment.push(id);
    this.options.onToken();
    this.flush(false);
  }

  private flush(final: boolean): void {
    if (this.segment.length === 0) return;
    const text = this.options.decode(this.segment);
    // An incomplete multi-byte character decodes to U+FFFD: wait for the next token.
    if (!final && text.endsWith('\uFFFD')) return;
    const piece = text.slice(this.printed);
    if (piece) this.options.onText(piece, this.channel);
    if (final || text.endsWith('\n')) {
      // Keep decoding cost bounded: start a new segment at line ends.
      this.segment = [];
      this.printed = 0;
    } else {
      this.printed = text.length;
    }
  }
}
