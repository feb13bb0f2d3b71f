// Silences and acks, an operator's decisions to mute alerts, kept in
// `<state_dir>/monitor/silences.json`: the CLI rewrites it under a lock, the daemon only reads it.
import { randomUUID } from "node:crypto";
import { readFileSync, statSync } from "node:fs";
import { writeFileAtomic } from "../util/atomic-write.js";
import { UserError } from "../util/errors.js";
import { withFileLock } from "../util/file-lock.js";
import type { Condition } from "./detect/conditions.js";

/** Mutes every condition its matcher matches, until `until`. */
export interface Silence {
  id: string;
  /** `schedule=<name>`, `kind=<kind>`, `run=<id>` or a fingerprint prefix; "," means and. */
  matcher: string;
  until: string;
  createdAt: string;
  comment?: string;
}

/** Stops reminders for one firing alert; with `until`, only until then. */
export interface Ack {
  fingerprint: string;
  at: string;
  until?: string;
}

export interface OperatorState {
  silences: Silence[];
  acks: Ack[];
}

export const NO_OPERATOR_STATE: OperatorState = { silences: [], acks: [] };

type Term = { key: "schedule" | "kind" | "run"; value: string } | { key: "prefix"; value: string };

const KEYS = new Set(["schedule", "kind", "run"]);

/** Parses a matcher; throws a UserError naming the bad term. */
export function parseMatcher(text: string): Term[] {
  const terms = text.split(",").map((t) => t.trim());
  if (terms.some((t) => t === ""))
    throw new UserError(`silence matcher ${JSON.stringify(text)} has an empty term`);
  return terms.map((term): Term => {
    if (term === "*") return { key: "prefix", value: "" }; // every alert
    const eq = term.indexOf("=");
    if (eq < 0) return { key: "prefix", value: term };
    const key = term.slice(0, eq);
    if (!KEYS.has(key))
      throw new UserError(
        `silence matcher term ${JSON.stringify(term)}: unknown key ${JSON.stringify(key)}; ` +
          "use schedule=<name>, kind=<kind>, run=<id> or a fingerprint prefix",
      );
    return { key: key as "schedule" | "kind" | "run", value: term.slice(eq + 1) };
  });
}

export function matches(matcher: string, condition: Condition): boolean {
  let terms: Term[];
  try {
    terms = parseMatcher(matcher);
  } catch {
    return false; // Validated when written; a hand-edited bad matcher silences nothing.
  }
  return terms.every((t) => {
    if (t.key === "prefix") return condition.fingerprint.startsWith(t.value);
    // A group is about its kind of trouble (its latest run may be of another kind).
    if (t.key === "kind") return condition.kind === t.value || condition.group?.kind === t.value;
    // A silence for one run mutes the group that run is in.
    if (t.key === "run" && condition.group?.members.some((m) => m.run === t.value)) return true;
    return condition[t.key] === t.value;
  });
}

const isActive = (until: string | undefined, now: Date) =>
  until === undefined || Date.parse(until) > now.getTime();

/** The silence muting `condition` at `now`, if any. */
export function activeSilence(
  state: OperatorState,
  condition: Condition,
  now: Date,
): Silence | undefined {
  return state.silences.find((s) => isActive(s.until, now) && matches(s.matcher, condition));
}

/**
 * The ack in force for an alert that fired at `firedAt`: acks from an earlier firing of the
 * same fingerprint do not count, since a problem that came back is news again.
 */
export function activeAck(
  state: OperatorState,
  fingerprint: string,
  firedAt: string,
  now: Date,
): Ack | undefined {
  return state.acks.find(
    (a) => a.fingerprint === fingerprint && a.at >= firedAt && isActive(a.until, now),
  );
}

/** Reads, and under a lock rewrites, the silences file. */
export class SilenceStore {
  /** What `current()` last read, and the file identity it was read from. */
  private cached: { stamp: string; state: OperatorState } | undefined;

  constructor(
    readonly path: string,
    private readonly log: (message: string) => void = (m) => console.error(m),
  ) {}

  /**
   * `read()` for every evaluation pass: re-read only when the file changed (the CLI replaces
   * it by rename, so a new inode, size or mtime). Treat the result as read-only.
   */
  current(): OperatorState {
    const st = statSync(this.path, { throwIfNoEntry: false });
    const stamp = st === undefined ? "-" : `${st.ino}:${st.size}:${st.mtimeMs}`;
    if (this.cached?.stamp !== stamp) this.cached = { stamp, state: this.read() };
    return this.cached.state;
  }

  /** The current decisions; a missing file is none, an unreadable one is logged and none. */
  read(): OperatorState {
    let text: string;
    try {
      text = readFileSync(this.path, "utf8");
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== "ENOENT")
        this.log(`${this.path}: cannot read silences and acks: ${(err as Error).message}`);
      return { silences: [], acks: [] };
    }
    try {
      const parsed = JSON.parse(text) as Partial<OperatorState>;
      const silences = Array.isArray(parsed.silences) ? parsed.silences : [];
      const acks = Array.isArray(parsed.acks) ? parsed.acks : [];
      return { silences, acks };
    } catch (err) {
      this.log(`${this.path}: not JSON, ignoring silences and acks: ${(err as Error).message}`);
      return { silences: [], acks: [] };
    }
  }

  silence(matcher: string, until: Date, now: Date, comment?: string): Silence {
    parseMatcher(matcher);
    const silence: Silence = {
      id: randomUUID().slice(0, 8),
      matcher,
      until: until.toISOString(),
      createdAt: now.toISOString(),
    };
    if (comment !== undefined && comment !== "") silence.comment = comment;
    this.change(now, (s) => s.silences.push(silence));
    return silence;
  }

  /** Ends a silence early; false when no silence has that id. */
  unsilence(id: string, now: Date): boolean {
    let found = false;
    this.change(now, (s) => {
      found = s.silences.some((x) => x.id === id);
      s.silences = s.silences.filter((x) => x.id !== id);
    });
    return found;
  }

  /** `until` undefined: until the alert resolves. */
  ack(fingerprint: string, now: Date, until?: Date): Ack {
    const ack: Ack = { fingerprint, at: now.toISOString() };
    if (until !== undefined) ack.until = until.toISOString();
    this.change(now, (s) => {
      s.acks = s.acks.filter((a) => a.fingerprint !== fingerprint);
      s.acks.push(ack);
    });
    return ack;
  }

  /** Expired silences and acks are dropped on every write, so the file stays small. */
  private change(now: Date, edit: (state: OperatorState) => void): void {
    withFileLock(this.path, () => {
      const state = this.read();
      edit(state);
      // Open-ended acks end when their alert resolves, which only the daemon sees: a month
      // is longer than any alert stays firing unnoticed.
      const monthAgo = new Date(now.getTime() - 30 * 86_400_000).toISOString();
      state.silences = state.silences.filter((s) => isActive(s.until, now));
      state.acks = state.acks.filter((a) =>
        a.until === undefined ? a.at >= monthAgo : isActive(a.until, now),
      );
      writeFileAtomic(this.path, `${JSON.stringify(state, null, 2)}\n`);
    });
  }
}
