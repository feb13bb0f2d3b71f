// Lines a failed write (a full disk) refused, held in memory in order and written again later:
// a disk that fills for a while loses none of them, and no file's lines change order, because
// once one write fails every later line waits behind it until the held ones go through.
import { errorText } from "../util/errors.js";

/** What a writer could not write, since when, and how many lines wait. */
export interface WriteTrouble {
  /** The file whose write failed last. */
  path: string;
  /** `CODE: message`, e.g. "ENOSPC: no space left on device, write". */
  error: string;
  /** ISO time of the first failed write of this spell. */
  since: string;
  waiting: number;
}

/** Beyond this many held lines the newest are dropped (and said so): memory is finite too. */
const MAX_HELD = 100_000;

export class HeldLines {
  private readonly held: { path: string; line: string }[] = [];
  private current: WriteTrouble | undefined;
  private dropped = 0;

  constructor(
    private readonly write: (path: string, line: string) => void,
    private readonly on: {
      /** The first failed write of a spell (and every thousandth line dropped past the limit). */
      trouble?: (trouble: WriteTrouble, dropped: number) => void;
      /** The spell is over: every held line is written. */
      recovered?: (trouble: WriteTrouble) => void;
    } = {},
    private readonly now = () => new Date(),
  ) {}

  /** Writes the line, or holds it behind any held before it; true when it is written. */
  append(path: string, line: string): boolean {
    if (this.held.length >= MAX_HELD) {
      // Said once per thousand, not per line: a busy daemon drops many.
      if (this.dropped++ % 1000 === 0 && this.current)
        this.on.trouble?.(this.current, this.dropped);
      return false;
    }
    this.held.push({ path, line });
    return this.flush();
  }

  /** Writes the held lines in order until one fails; true when none is left. */
  flush(): boolean {
    let written = 0;
    while (written < this.held.length) {
      const next = this.held[written]!;
      try {
        this.write(next.path, next.line);
        written++;
      } catch (err) {
        this.held.splice(0, written);
        const first = this.current === undefined;
        this.current = {
          path: next.path,
          error: errorText(err),
          since: this.current?.since ?? this.now().toISOString(),
          waiting: this.held.length,
        };
        if (first) this.on.trouble?.(this.current, this.dropped);
        return false;
      }
    }
    this.held.length = 0;
    const ended = this.current;
    this.current = undefined;
    if (ended !== undefined) this.on.recovered?.(ended);
    return true;
  }

  /** The current spell of failed writes, if any. */
  trouble(): WriteTrouble | undefined {
    return this.current && { ...this.current, waiting: this.held.length };
  }

  /** Forgets what is held (its content was written another way, e.g. a compaction). */
  clear(): void {
    this.held.length = 0;
    this.current = undefined;
  }
}

/** Of the named writers, those whose writes fail now, with their trouble. */
export function failingWriters<N extends string>(
  writers: Partial<Record<N, { writeTrouble(): WriteTrouble | undefined }>>,
): ({ what: N } & WriteTrouble)[] {
  const out: ({ what: N } & WriteTrouble)[] = [];
  for (const what of Object.keys(writers) as N[]) {
    const trouble = writers[what]?.writeTrouble();
    if (trouble !== undefined) out.push({ what, ...trouble });
  }
  return out;
}
