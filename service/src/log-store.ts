/**
 * A run's output: child bytes → text lines (UTF-8 decoded leniently, ANSI and control codes
 * removed, tqdm's carriage-return redraws collapsed, overlong lines cut) → a bounded in-memory
 * ring of the last lines plus an append-only file on disk. `tail` reads only the ring, so its cost
 * does not grow with the log; the cursor form reads older lines from disk through a sparse index.
 */
import { createReadStream, createWriteStream, type WriteStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { createInterface } from 'node:readline';

// CSI, OSC (ended by BEL or ST), other two-byte escapes, then C0/C1 controls except tab, and the
// bidirectional overrides that could make a log line read differently from what it holds.
const UNSAFE =
  // eslint-disable-next-line no-control-regex
  /\u001b\[[0-?]*[ -/]*[@-~]|\u001b\][^\u0007\u001b]*(?:\u0007|\u001b\\)?|\u001b[@-Z\\-_]?|[\u0000-\u0008\u000a-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g;

/** Removes ANSI escape sequences and control characters (tabs stay). */
export function sanitizeLine(text: string): string {
  return text.replace(UNSAFE, '');
}

const NEWLINE = /[\r\n]/g;

/**
 * Splits one output stream into lines the way a terminal shows them: '\n' ends a line, '\r'
 * alone returns to the line start so the next text replaces it (tqdm), '\r\n' ends a line.
 */
export class LineAssembler {
  private readonly decoder = new TextDecoder('utf-8', { fatal: false });
  private pending = '';
  private dropped = 0;
  private carriageReturn = false;
  /** When the open line last changed (orders the open lines of stdout and stderr). */
  updatedAt = 0;

  constructor(
    private readonly maxChars: number,
    private readonly onLine: (line: string) => void,
  ) {}

  push(chunk: Uint8Array): void {
    this.feed(this.decoder.decode(chunk, { stream: true }));
  }

  /** Flushes the decoder and commits an unterminated last line. */
  end(): void {
    this.feed(this.decoder.decode());
    if (this.pending !== '' || this.dropped > 0) this.commit();
  }

  /** The open (unterminated) line, sanitized, or '' when there is none. */
  get open(): string {
    return this.pending === '' ? '' : sanitizeLine(this.pending);
  }

  private feed(text: string): void {
    let i = 0;
    while (i < text.length) {
      NEWLINE.lastIndex = i;
      const match = NEWLINE.exec(text);
      const end = match ? match.index : text.length;
      if (end > i) {
        if (this.carriageReturn) this.reset();
        this.append(text.slice(i, end));
      }
      if (!match) break;
      if (match[0] === '\n') this.commit();
      else this.carriageReturn = true;
      i = end + 1;
    }
    this.updatedAt = performance.now();
  }

  private append(text: string): void {
    const room = this.maxChars - this.pending.length;
    if (text.length <= room) {
      this.pending += text;
    } else {
      if (room > 0) this.pending += text.slice(0, room);
      this.dropped += text.length - Math.max(room, 0);
    }
  }

  private reset(): void {
    this.pending = '';
    this.dropped = 0;
    this.carriageReturn = false;
  }

  private commit(): void {
    const suffix = this.dropped > 0 ? ` … [line cut: ${this.dropped} more characters]` : '';
    const line = sanitizeLine(this.pending) + suffix;
    this.reset();
    this.onLine(line);
  }
}

const CHECKPOINT_EVERY = 1024;
const REDACTED = '[hub token]';

/** The committed lines of one run: a ring in memory, all of them on disk. */
export class LogStore {
  private readonly ring: string[];
  private head = 0;
  /** Committed lines so far. */
  total = 0;
  private bytes = 0;
  private flushedLines = 0;
  /** Byte offset of line k·1024 in the file. */
  private readonly checkpoints: number[] = [];
  private batch: string[] = [];
  private out: WriteStream | null = null;
  /** Open lines of the live streams, shown after the committed ones. */
  readonly assemblers: LineAssembler[] = [];
  /** Secrets of the run (its Hub token) never kept or shown: replaced in every line. */
  private readonly secrets: string[] = [];

  constructor(
    private readonly file: string,
    private readonly capacity: number,
  ) {
    this.ring = new Array<string>(capacity);
  }

  /** Opens the file for appending (a live run). */
  openForWriting(): void {
    this.out = createWriteStream(this.file, { flags: 'a' });
  }

  /** Rebuilds the ring, count and index from the file (a run from before a restart). */
  static async load(file: string, capacity: number): Promise<LogStore> {
    const store = new LogStore(file, capacity);
    const exists = await stat(file).then(
      (s) => s.isFile(),
      () => false,
    );
    if (!exists) return store;
    const lines = createInterface({ input: createReadStream(file), crlfDelay: Infinity });
    for await (const line of lines) store.record(line);
    store.flushedLines = store.total;
    return store;
  }

  private record(line: string): void {
    if (this.total % CHECKPOINT_EVERY === 0) this.checkpoints.push(this.bytes);
    this.ring[this.head] = line;
    this.head = (this.head + 1) % this.capacity;
    this.total += 1;
    this.bytes += Buffer.byteLength(line) + 1;
  }

  /** From now on, `secret` is replaced by "[hub token]" in every line kept or shown. */
  redact(secret: string): void {
    if (secret !== '') this.secrets.push(secret);
  }

  private scrub(line: string): string {
    let clean = line;
    for (const secret of this.secrets) clean = clean.replaceAll(secret, REDACTED);
    return clean;
  }

  /** Adds a committed line (in memory now, on disk at the next flush). */
  append(line: string): void {
    const clean = this.scrub(line);
    this.record(clean);
    this.batch.push(clean);
  }

  /**
   * Writes the pending batch; resolves true when the file can take more now, false when the
   * caller should wait for {@link drained} (backpressure onto the child's pipe).
   */
  flush(): boolean {
    if (!this.out || this.batch.length === 0) return true;
    const count = this.batch.length;
    const text = this.batch.join('\n') + '\n';
    this.batch = [];
    return this.out.write(text, () => {
      this.flushedLines += count;
    });
  }

  drained(): Promise<void> {
    return new Promise((ok) => (this.out ? this.out.once('drain', ok) : ok()));
  }

  /** Flushes and closes the file. */
  async close(): Promise<void> {
    this.flush();
    const out = this.out;
    this.out = null;
    if (out) await new Promise<void>((ok) => out.end(ok));
  }

  private inRing(): number {
    return Math.min(this.total, this.capacity);
  }

  /** Committed line `index` from the ring (caller checks it is there). */
  private ringLine(index: number): string {
    return this.ring[(this.head - (this.total - index) + this.capacity * 2) % this.capacity] ?? '';
  }

  /** Open lines of live streams, oldest change first. */
  private openLines(): string[] {
    return this.assemblers
      .filter((a) => a.open !== '')
      .sort((a, b) => a.updatedAt - b.updatedAt)
      .map((a) => this.scrub(a.open));
  }

  /** The last `n` lines (open lines included): cost O(n), whatever the log's size. */
  tail(n: number): string[] {
    const open = this.openLines().slice(-n);
    const fromRing = Math.min(n - open.length, this.inRing());
    const lines: string[] = [];
    for (let i = this.total - fromRing; i < this.total; i++) lines.push(this.ringLine(i));
    return lines.concat(open);
  }

  /**
   * Committed lines `offset`…`offset+limit-1`. Recent lines come from the ring; older ones from
   * the file, starting at the nearest checkpoint (at most 1,023 lines skipped). Lines written
   * to the process but not yet on disk and already out of the ring are returned by a later call.
   */
  async page(offset: number, limit: number): Promise<string[]> {
    if (offset >= this.total) return [];
    const ringStart = this.total - this.inRing();
    if (offset >= ringStart) {
      const lines: string[] = [];
      for (let i = offset; i < Math.min(this.total, offset + limit); i++)
        lines.push(this.ringLine(i));
      return lines;
    }
    const end = Math.min(offset + limit, this.flushedLines, ringStart);
    if (end <= offset) return [];
    const checkpoint = Math.floor(offset / CHECKPOINT_EVERY);
    const start = this.checkpoints[checkpoint] ?? 0;
    let index = checkpoint * CHECKPOINT_EVERY;
    const lines: string[] = [];
    const input = createReadStream(this.file, { start });
    const reader = createInterface({ input, crlfDelay: Infinity });
    try {
      for await (const line of reader) {
        if (index >= offset) lines.push(line);
        index += 1;
        if (index >= end) break;
      }
    } finally {
      reader.close();
      input.destroy();
    }
    return lines;
  }
}
