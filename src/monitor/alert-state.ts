// The alert state on disk (`<state_dir>/monitor/alerts.json`): loaded once, advanced by
// `reconcile`, rewritten atomically by `save`, so a restart with nothing changed sends nothing.
import { readFileSync, renameSync } from "node:fs";
import { join } from "node:path";
import { writeFileAtomic, writeFileAtomicAsync } from "../util/atomic-write.js";
import {
  type AlertPolicy,
  type AlertRecord,
  DEFAULT_ALERT_POLICY,
  type Ending,
  type Notification,
  reconcileAlerts,
} from "./alert-rules.js";
import type { Condition } from "./detect/conditions.js";
import { NO_OPERATOR_STATE, type OperatorState } from "./silences.js";

export type { AlertPhase, AlertPolicy, AlertRecord, Ending, Notification } from "./alert-rules.js";

export interface AlertStateDeps {
  log: (message: string) => void;
  writeAtomic: (path: string, content: string) => void;
  writeAtomicAsync: (path: string, content: string) => Promise<void>;
  /** How long a background save waits before serializing (default AFTER_SEND_MS). */
  saveDelayMs: number;
  /**
   * Awaited before a background save is written: the outbox's records on disk, so that the
   * state never says "notified" about a page whose outbox line a power cut could still lose.
   */
  beforeSave: () => Promise<void>;
}

/**
 * How long after a page its incident file and the alert state are written: the request
 * goes out first. A crash meanwhile cannot lose the page (the outbox holds it); its incident
 * file may be missing until the alert's next reminder or update opens it. A delivery in
 * between writes the incident first.
 */
export const AFTER_SEND_MS = 10;

const PHASES = new Set(["pending", "firing", "resolved"]);

export function alertsPath(stateDir: string): string {
  return join(stateDir, "monitor", "alerts.json");
}

function isRecord(value: unknown): value is AlertRecord {
  if (typeof value !== "object" || value === null) return false;
  const r = value as Partial<AlertRecord>;
  return (
    typeof r.fingerprint === "string" &&
    typeof r.phase === "string" &&
    PHASES.has(r.phase) &&
    typeof r.condition === "object" &&
    r.condition !== null &&
    typeof r.firstSeenAt === "string" &&
    (r.phase !== "firing" || typeof r.firedAt === "string")
  );
}

export class AlertState {
  private readonly alerts = new Map<string, AlertRecord>();
  private readonly policy: AlertPolicy;
  private readonly deps: AlertStateDeps;
  private written: string | undefined;
  /** Changed since the last background save was serialized. */
  private dirty = false;
  private writing: Promise<void> | undefined;
  /** No state on disk yet: the next reconcile is the monitor's first look. */
  private fresh = true;

  constructor(
    readonly path: string,
    policy: Partial<AlertPolicy> = {},
    deps: Partial<AlertStateDeps> = {},
  ) {
    this.policy = { ...DEFAULT_ALERT_POLICY, ...policy };
    this.deps = {
      log: (m) => console.error(m),
      writeAtomic: writeFileAtomic,
      writeAtomicAsync: writeFileAtomicAsync,
      saveDelayMs: AFTER_SEND_MS,
      beforeSave: () => Promise.resolve(),
      ...deps,
    };
    this.load();
  }

  /**
   * Advances every alert to `now` and returns the notifications to send. Enqueue them, then
   * call `save()`: a crash in between sends them again rather than never.
   */
  reconcile(
    conditions: readonly Condition[],
    now: Date,
    operator: OperatorState = NO_OPERATOR_STATE,
    endingOf?: (rec: AlertRecord) => Ending | undefined,
    watchingSince?: Date,
  ): Notification[] {
    const firstLook = this.fresh;
    this.fresh = false;
    return reconcileAlerts(
      this.alerts,
      conditions,
      now,
      operator,
      this.policy,
      endingOf,
      firstLook,
      watchingSince?.getTime(),
    );
  }

  /** Writes the state if it changed since the last load or save (call `flush()` first). */
  save(): void {
    const text = this.text();
    if (text === this.written) return;
    this.deps.writeAtomic(this.path, text);
    this.written = text;
  }

  /**
   * Like `save`, with the file written on libuv's pool, so that a page's webhook request is
   * not held behind the rewrite. Saves go one at a time and the newest state is written last;
   * one that fails is logged and tried again by the next. `flush()` waits for them. The state
   * is serialized AFTER_SEND_MS later, once the pass that enqueued a page has let its request
   * go out (serializing hundreds of alerts would delay every first page).
   */
  saveInBackground(): void {
    this.dirty = true;
    this.writing ??= this.drain();
  }

  /**
   * Forgets a background save not yet serialized: after a pass that failed half-way, the live
   * state holds notifications that were never enqueued and must not be saved as sent. The
   * passes before it lose their save too, so their pages go out again rather than never.
   */
  discardPending(): void {
    this.dirty = false;
  }

  /** Resolves when every background save has been written (or has failed). */
  async flush(): Promise<void> {
    while (this.writing !== undefined) await this.writing;
  }

  private async drain(): Promise<void> {
    await new Promise<void>((resolve) => setTimeout(resolve, this.deps.saveDelayMs));
    while (this.dirty) {
      this.dirty = false;
      const text = this.text();
      if (text === this.written) continue;
      try {
        await this.deps.beforeSave();
        await this.deps.writeAtomicAsync(this.path, text);
        this.written = text;
      } catch (err) {
        // The next save (the next pass that changes anything, or stop) tries again.
        this.deps.log(`${this.path}: cannot save the alert state, will try again: ${err}`);
      }
    }
    this.writing = undefined;
  }

  private text(): string {
    return `${JSON.stringify({ version: 1, alerts: this.list() }, null, 2)}\n`;
  }

  /** Every tracked alert, firing and recently resolved (live objects: treat as read-only). */
  list(): AlertRecord[] {
    return [...this.alerts.values()];
  }

  get(fingerprint: string): AlertRecord | undefined {
    return this.alerts.get(fingerprint);
  }

  /**
   * A missing file is a first start. An unreadable one is moved aside (for a human to look
   * at) and the state starts empty: at worst, alerts that still hold fire once more.
   */
  private load(): void {
    let text: string;
    try {
      text = readFileSync(this.path, "utf8");
      this.fresh = false;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== "ENOENT")
        this.deps.log(`${this.path}: cannot read alert state, starting empty: ${err}`);
      return;
    }
    let alerts: unknown;
    try {
      alerts = (JSON.parse(text) as { alerts?: unknown }).alerts;
      if (!Array.isArray(alerts)) throw new Error('no "alerts" array');
    } catch (err) {
      this.deps.log(`${this.path}: unreadable alert state, starting empty: ${err}`);
      this.moveAside();
      return;
    }
    let dropped = 0;
    for (const a of alerts) {
      if (isRecord(a)) this.alerts.set(a.fingerprint, a);
      else dropped += 1;
    }
    if (dropped > 0) this.deps.log(`${this.path}: dropped ${dropped} malformed alert entries`);
    this.written = dropped === 0 ? text : undefined;
  }

  private moveAside(): void {
    try {
      renameSync(this.path, `${this.path}.unreadable`);
    } catch {
      // Best effort: the next save replaces it anyway.
    }
  }
}
