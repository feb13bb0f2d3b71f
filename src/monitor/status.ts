// `autoloop-cron status`: the exceptions only, read from files on disk (alert state, incidents,
// outbox, schedule files) so it works with or without a daemon and never changes a thing.
import { existsSync, readFileSync } from "node:fs";
import { IncidentStore, type IncidentSummary } from "../incidents/store.js";
import { LineCursor, parseLines } from "../journal/reader.js";
import { type SpendRow, spendLine, spendRows } from "../scheduler/budget/spend-rows.js";
import type { CronConfig } from "../scheduler/config/config.js";
import { RunLedger } from "../scheduler/ledger/ledger.js";
import type { Schedule } from "../scheduler/schedules/schedule-file.js";
import { loadScheduleSet } from "../scheduler/schedules/schedule-set.js";
import { type FieldProblem, formatProblem } from "../util/errors.js";
import { processRedactor, redactStrings } from "../util/secrets.js";
import { printable } from "../util/terminal-text.js";
import { probeWritableSync } from "../util/writable-probe.js";
import type { AlertRecord } from "./alert-state.js";
import { runGroupWords } from "./detect/condition-kinds.js";
import type { ConditionKind } from "./detect/conditions.js";
import { parseOutboxRecord, replayOutbox } from "./outbox/record.js";
import { type DeadLetterSummary, outboxStatus } from "./outbox/status.js";
import { monitorPaths } from "./paths.js";
import { activeAck, activeSilence, SilenceStore } from "./silences.js";
import { type WindowState, windowState, withWindows } from "./windows.js";

export interface FiringAlert {
  fingerprint: string;
  kind: ConditionKind;
  severity: string;
  summary: string;
  schedule?: string;
  run?: string;
  firedAt: string;
  /** Muted by the operator: listed, but no longer needs a human. */
  muted?: "acked" | "silenced";
  /** The on-call group: a schedule failing one way, or one run started by hand. */
  group?: {
    by: "schedule" | "run";
    kind: ConditionKind;
    consecutiveFailures: number;
    failingSince: string;
    runs: string[];
  };
  /** Found on the monitor's first look, all its runs over: listed, never paged. */
  fromBefore?: true;
}

export interface StatusReport {
  firing: FiringAlert[];
  incidents: IncidentSummary[];
  problems: string[];
  outbox: { backlog: number; oldestPendingAgeMs?: number; deadLetters: DeadLetterSummary[] };
  invalidFiles: { file: string; problems: string[] }[];
  /** Set when the state dir refuses a write now (a full disk): `CODE: message`. */
  stateDirUnwritable?: string;
  /** Schedules with a budget or spend this month: spent today and this month, and limits. */
  spend: SpendRow[];
  /** The maintenance windows (`[[silence]]`): open now, or when they next open. */
  windows: WindowState[];
  /** Something nobody has taken on yet: `status` exits 1. */
  needsHuman: boolean;
}

/** Dead letters older than this no longer count as news (they stay in the outbox file). */
const DEAD_NEWS_MS = 86_400_000;

function readAlerts(path: string, problems: string[]): AlertRecord[] {
  try {
    const parsed = JSON.parse(readFileSync(path, "utf8")) as { alerts?: unknown };
    return Array.isArray(parsed.alerts) ? (parsed.alerts as AlertRecord[]) : [];
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== "ENOENT") problems.push(`${path}: unreadable`);
    return [];
  }
}

interface DaemonHeld {
  invalid: readonly FieldProblem[];
  schedules: ReadonlyMap<string, Schedule>;
  ledger: RunLedger;
}

/**
 * `daemon`: what a running daemon already holds (its schedule problems, schedules and ledger),
 * so the schedule files are not parsed again; without it they are, and the ledger is opened.
 * Its text is redacted: alert titles quote runs, and a run can write its agent's keys.
 */
export function readStatus(
  config: CronConfig,
  now: Date = new Date(),
  daemon?: DaemonHeld,
): StatusReport {
  return redactStrings(collectStatus(config, now, daemon), processRedactor);
}

function collectStatus(config: CronConfig, now: Date, daemon?: DaemonHeld): StatusReport {
  const paths = monitorPaths(config.stateDir);
  const problems: string[] = [];
  const stored = new SilenceStore(paths.silences, (m) => problems.push(m)).read();
  const operator = withWindows(stored, config.windows, now);
  const firing = readAlerts(paths.alerts, problems)
    .filter((a) => a.phase === "firing" && a.condition !== undefined)
    .map((a): FiringAlert => {
      const c = a.condition;
      const f: FiringAlert = {
        fingerprint: a.fingerprint,
        // A group is of its own kind; its latest member's may differ (a stuck-gate group whose
        // newest run failed outright is still the stuck-gate alert).
        kind: c.group?.kind ?? c.kind,
        severity: c.severity,
        summary: c.summary,
        firedAt: a.firedAt ?? a.firstSeenAt,
      };
      if (c.schedule !== undefined) f.schedule = c.schedule;
      if (c.run !== undefined) f.run = c.run;
      if (c.group !== undefined) {
        const { by, kind, consecutiveFailures, failingSince, members } = c.group;
        f.group = { by, kind, consecutiveFailures, failingSince, runs: members.map((m) => m.run) };
      }
      if (a.baseline) f.fromBefore = true;
      if (activeSilence(operator, c, now) !== undefined) f.muted = "silenced";
      else if (activeAck(operator, a.fingerprint, f.firedAt, now) !== undefined) f.muted = "acked";
      return f;
    });
  const incidents = new IncidentStore(paths.incidents).snapshot();
  const records = parseLines(new LineCursor(paths.outbox).readNew(), parseOutboxRecord).items;
  const box = outboxStatus(replayOutbox(records), 0, 0, now.getTime());
  const deadLetters = box.deadLetters.filter(
    (d) => now.getTime() - Date.parse(d.at) <= DEAD_NEWS_MS,
  );
  const byFile = new Map<string, string[]>();
  const set = daemon === undefined ? loadScheduleSet(config) : undefined;
  for (const p of daemon?.invalid ?? set?.problems ?? [])
    byFile.set(p.file, [...(byFile.get(p.file) ?? []), formatProblem(p)]);
  const invalidFiles = [...byFile].map(([file, list]) => ({ file, problems: list }));
  // A full disk may keep the monitor from recording its alert: asked directly. Only the disk's
  // refusals count (a reader without write permission is not a disk problem).
  const probe = existsSync(config.stateDir) ? probeWritableSync(config.stateDir) : { ok: true };
  const writable = /^(ENOSPC|EDQUOT|EROFS|EIO)\b/.test(probe.error ?? "") ? probe : { ok: true };
  const needsHuman =
    !writable.ok ||
    firing.some((f) => f.muted === undefined) ||
    incidents.active.some((i) => i.status === "open") ||
    deadLetters.length > 0 ||
    invalidFiles.length > 0;
  return {
    firing,
    incidents: incidents.active,
    problems: [...problems, ...incidents.problems],
    outbox: {
      backlog: box.backlog,
      ...(box.oldestPendingAgeMs !== undefined && { oldestPendingAgeMs: box.oldestPendingAgeMs }),
      deadLetters,
    },
    invalidFiles,
    ...(!writable.ok && { stateDirUnwritable: writable.error ?? "unknown error" }),
    spend: spendOf(config, now, daemon ?? (set && { schedules: set.schedules })),
    windows: config.windows.map((w) => windowState(w, now)),
    needsHuman,
  };
}

function spendOf(
  config: CronConfig,
  now: Date,
  from: { schedules: ReadonlyMap<string, Schedule>; ledger?: RunLedger } | undefined,
): SpendRow[] {
  if (from === undefined || !existsSync(config.stateDir)) return [];
  const ledger = from.ledger ?? RunLedger.open(config.stateDir);
  return spendRows(from.schedules, ledger, now.getTime());
}

export const ALL_CLEAR =
  "All clear: no stuck, failed or stalled runs, no open incidents, every alert delivered.";

// Text from journals and files, with control characters shown escaped (no terminal tricks).
export { printable };

/** The report as plain text; one line when nothing is wrong. */
export function renderStatus(r: StatusReport): string {
  const quiet =
    r.firing.length === 0 &&
    r.incidents.length === 0 &&
    r.outbox.backlog === 0 &&
    r.outbox.deadLetters.length === 0 &&
    r.invalidFiles.length === 0 &&
    r.stateDirUnwritable === undefined &&
    r.problems.length === 0;
  const spend = r.spend.map(spendLine);
  const windows = r.windows.map(windowLine);
  const windowText =
    windows.length === 0
      ? ""
      : `\nMaintenance windows:\n${windows.map((l) => `  ${l}\n`).join("")}`;
  const spendText = spend.length === 0 ? "" : `\nSpend:\n${spend.map((l) => `  ${l}\n`).join("")}`;
  if (quiet) return `${ALL_CLEAR}\n${windowText}${spendText}`;
  const out: string[] = [];
  const section = (title: string, lines: string[]) => {
    if (lines.length > 0) out.push(`${title}:`, ...lines.map((l) => `  ${l}`), "");
  };
  if (r.stateDirUnwritable !== undefined)
    section("State dir", [
      `not writable: ${r.stateDirUnwritable}; the daemon holds ledger and outbox lines in memory until it is (free space, or move state_dir)`,
    ]);
  const failing = r.firing.filter((f) => f.group?.by === "schedule" && f.schedule !== undefined);
  section(
    "Failing schedules",
    failing.map((f) => {
      const g = f.group!;
      const muted = f.muted === undefined ? "" : ` (${f.muted})`;
      const count =
        g.consecutiveFailures > 0
          ? `${g.consecutiveFailures} failed in a row since ${g.failingSince}`
          : `since ${g.failingSince}`;
      return printable(
        `${f.schedule}: ${runGroupWords(g.kind).title}, ${count}${muted}  [${f.fingerprint}]`,
      );
    }),
  );
  section(
    "Firing alerts",
    r.firing.map((f) => {
      const muted = f.muted === undefined ? "" : ` (${f.muted})`;
      const before = f.fromBefore ? " (found on the monitor's first look)" : "";
      return printable(
        `${f.severity.padEnd(8)} ${f.summary}  since ${f.firedAt}${muted}${before}  [${f.fingerprint}]`,
      );
    }),
  );
  section(
    "Open incidents",
    r.incidents.map((i) =>
      printable(`${i.priority.padEnd(8)} ${i.slug}  ${i.status}  updated ${i.updatedAt}`),
    ),
  );
  const box = r.outbox;
  const backlog =
    box.backlog === 0
      ? []
      : [
          `${box.backlog} alert(s) waiting to be delivered (oldest ${Math.round((box.oldestPendingAgeMs ?? 0) / 1000)}s)`,
        ];
  section("Outbox", [
    ...backlog,
    ...box.deadLetters.map(
      (d) => `undelivered to ${d.channel}: ${d.kind} ${d.fingerprint}: ${d.error}`,
    ),
  ]);
  section(
    "Invalid schedule files",
    r.invalidFiles.flatMap((f) => f.problems),
  );
  section("Problems reading state", r.problems);
  return `${out.join("\n").trimEnd()}\n${windowText}${spendText}`;
}

/** "nightly-maintenance: open until 2026-11-28T04:00:00.000Z (schedules nightly; kinds any)". */
function windowLine(w: WindowState): string {
  const scope = `schedules ${w.schedules.join(", ") || "any"}; kinds ${w.kinds.join(", ") || "any"}`;
  const when =
    w.until !== undefined
      ? `open until ${w.until}: matching alerts wait for its end`
      : w.next !== undefined
        ? `next opens ${w.next}`
        : "never opens again";
  return printable(`${w.name}: ${when} (${scope})`);
}
