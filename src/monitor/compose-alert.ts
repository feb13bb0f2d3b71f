// Turns an alert-state notification into the AlertMessage the outbox stores: titles, the
// run's facts, the last journal lines of that run and the exact commands to type next.
import { closeSync, readSync } from "node:fs";
import { dirname } from "node:path";
import { decodeRecord, type JournalRecord } from "../journal/codec.js";
import { recordLine } from "../journal/summary.js";
import type { Schedule } from "../scheduler/schedules/schedule-file.js";
import { shellQuote } from "../util/shell-quote.js";
import { openRegularFile } from "../util/untrusted-file.js";
import type { Notification } from "./alert-state.js";
import type { AlertMessage } from "./alerts/message.js";
import { JOURNAL_TAIL_LINES } from "./alerts/render.js";
import { kindOf, runGroupWords } from "./detect/condition-kinds.js";
import type { Condition } from "./detect/conditions.js";
import type { RunState } from "./detect/run-state.js";

const TAIL_BYTES = 256 * 1024;
const LINE_MAX = 240;
const NEWLINE = 0x0a;

/**
 * The last `count` records of `run` in the journal, one readable line each. Reads only the
 * journal's last 256 KB: an alert is about what happened lately, and a tail read stays cheap
 * on a huge journal. The page waits for this, and a journal holds many runs' lines: the run's
 * id is searched for in the bytes, from the end, and only the lines naming it are decoded.
 */
export function journalTail(path: string, run: string, count = JOURNAL_TAIL_LINES): string[] {
  if (run === "") return []; // no run to name (and an empty id would match everywhere)
  let opened: ReturnType<typeof openRegularFile>;
  try {
    opened = openRegularFile(path);
  } catch {
    return [];
  }
  if (opened === undefined) return [];
  const { fd } = opened;
  let buf: Buffer;
  let start: number;
  let got = 0;
  try {
    const size = opened.stat.size;
    start = Math.max(0, size - TAIL_BYTES);
    buf = Buffer.allocUnsafe(size - start);
    while (got < buf.length) {
      const n = readSync(fd, buf, got, buf.length - got, start + got);
      if (n <= 0) break;
      got += n;
    }
  } finally {
    closeSync(fd);
  }
  const bytes = buf.subarray(0, got);
  const mention = Buffer.from(JSON.stringify(run).slice(1, -1));
  const mine: JournalRecord[] = [];
  let at = bytes.lastIndexOf(mention);
  while (at !== -1 && mine.length < count) {
    const lineStart = bytes.lastIndexOf(NEWLINE, at) + 1;
    // The window's first line starts before it (unless the window is the whole file).
    if (lineStart === 0 && start > 0) break;
    const lineEnd = bytes.indexOf(NEWLINE, at);
    const record = decodeRecord(bytes.toString("utf8", lineStart, lineEnd === -1 ? got : lineEnd));
    if (record?.run === run) mine.push(record);
    at = lineStart === 0 ? -1 : bytes.lastIndexOf(mention, lineStart - 1);
  }
  return mine.reverse().map((r) => recordLine(r, LINE_MAX));
}

/** Incident priority: the alert's own level, so a page and its incident never disagree. */
export function incidentPriority(c: Pick<Condition, "severity">): "critical" | "medium" {
  return c.severity === "critical" ? "critical" : "medium";
}

/** The kind of trouble a condition is about: its group's, when grouped. */
export function troubleKind(c: Condition): Condition["kind"] {
  return c.group?.kind ?? c.kind;
}

/** The incident name: `<kind> <schedule>` for a schedule's group, else `<kind> <subject>`. */
export function incidentName(c: Condition): string {
  if (c.group?.by === "schedule") return `${c.group.kind} ${c.schedule}`;
  if (c.group?.by === "run") return `${c.group.kind} ${c.run}`;
  return `${c.kind} ${kindOf(c).subject(c)}`;
}

function title(c: Condition): string {
  if (c.group?.by === "schedule") {
    const n = c.group.consecutiveFailures;
    const what = runGroupWords(c.group.kind).title;
    return `Schedule ${c.schedule}: ${what}${n > 1 ? ` (${n} failed in a row)` : ""}`;
  }
  return kindOf(c).title(c);
}

export interface MessageContext {
  run?: RunState;
  preset?: string;
  objective?: string;
  timezone: string;
  incident?: { slug: string; id: string };
  /** The config file, named in every `autoloop-cron` command so it works from any folder. */
  configFile?: string;
  /** The run is a command schedule's: no journal, its output log says what happened. */
  commandRun?: boolean;
  /** The pull request the run or its schedule delivered (`alert-pull-request.ts`). */
  pullRequest?: string;
}

/** The notifications that go to the channels (the others only touch the incident). */
export type ChannelNotification = Notification & {
  kind: "firing" | "reminder" | "resolved" | "acknowledged";
};

export function goesToChannels(n: Notification): n is ChannelNotification {
  return (
    n.kind === "firing" ||
    n.kind === "reminder" ||
    n.kind === "resolved" ||
    n.kind === "acknowledged"
  );
}

/** The message for one notification; `now`-free, so a resend carries the same facts. */
export function buildAlertMessage(n: ChannelNotification, ctx: MessageContext): AlertMessage {
  const c = n.condition;
  const kind = kindOf(c);
  const runId = c.run;
  const resolved = n.kind === "resolved";
  const journalPath = c.journalPath ?? ctx.run?.journalPath;
  const workDir = ctx.run?.workDir ?? (journalPath ? dirname(dirname(journalPath)) : undefined);
  const commands: AlertMessage["commands"] = {};
  // Journal text reaches these commands (run ids, paths): quoted, so pasting one is safe.
  const config = ctx.configFile === undefined ? "" : ` --config ${shellQuote(ctx.configFile)}`;
  if (runId !== undefined && ctx.commandRun === true)
    commands.inspect = `autoloop-cron output ${shellQuote(runId)}${config}`;
  else if (runId !== undefined && workDir !== undefined)
    commands.inspect = `autoloop inspect journal --run ${shellQuote(runId)} --work-dir ${shellQuote(workDir)}`;
  else commands.inspect = `autoloop-cron status${config}`;
  if (ctx.incident !== undefined && !resolved)
    commands.ack = `autoloop-cron incident ack ${shellQuote(ctx.incident.slug)}${config}`;
  if (runId !== undefined && kind.live && !resolved) {
    // A live run can be answered or guided, and goes on: the page is the way back to it.
    if (kind.question?.(c) !== undefined)
      commands.answer = `autoloop-cron answer ${shellQuote(runId)} "<your answer>"${config}`;
    commands.guide = `autoloop-cron guide ${shellQuote(runId)} "<what to do next>"${config}`;
    const open = kind.gate?.(c).openTasks[0]?.id;
    if (open !== undefined)
      commands.task = `autoloop-cron task ${shellQuote(runId)} complete ${shellQuote(open)}${config}`;
    commands.stop = `autoloop-cron stop ${shellQuote(runId)}${config}`;
  }
  const message: AlertMessage = {
    fingerprint: n.fingerprint,
    kind: troubleKind(c),
    status: n.kind,
    title: title(c),
    summary: resolved ? `Resolved${n.note ? ` (${n.note})` : ""}: ${c.summary}` : c.summary,
    timezone: ctx.timezone,
    occurredAt: resolved ? n.at : c.occurredAt,
    journalTail: runId !== undefined && journalPath ? journalTail(journalPath, runId) : [],
    commands,
  };
  if (n.reminder !== undefined) message.reminder = n.reminder;
  if (c.schedule !== undefined) message.schedule = c.schedule;
  if (ctx.preset !== undefined) message.preset = ctx.preset;
  if (runId !== undefined) message.runId = runId;
  if (ctx.objective !== undefined) message.objective = ctx.objective;
  if (journalPath !== undefined) message.journalPath = journalPath;
  if (ctx.incident !== undefined) message.incident = ctx.incident;
  const spend = ctx.run?.spend;
  if (spend !== undefined && spend.iterations > 0)
    message.cost = {
      usd: Math.round(spend.costUsd * 1e6) / 1e6,
      tokens: spend.tokens,
      iterations: spend.iterations,
      unknownIterations: Math.max(0, spend.iterations - spend.priced),
    };
  const gate = kind.gate?.(c);
  if (gate !== undefined) {
    const { topic, openTasks, refusals, since } = gate;
    message.gate = { topic, openTasks, refusals, since };
  }
  const text = kind.detail(c);
  if (text !== undefined && text !== "") message.detail = text;
  if (c.group !== undefined) {
    message.group = {
      by: c.group.by,
      kind: c.group.kind,
      consecutiveFailures: c.group.consecutiveFailures,
      failingSince: c.group.failingSince,
      runs: c.group.members.map((m) => m.note),
    };
  }
  if (c.retry !== undefined) message.retry = c.retry;
  if (ctx.pullRequest !== undefined) message.pullRequest = ctx.pullRequest;
  if (resolved && n.note !== undefined) message.resolution = n.note;
  return message;
}

/** The message for `n` with what the run and its schedule add (preset, objective, timezone). */
export function composeMessage(
  n: ChannelNotification,
  ctx: {
    run: RunState | undefined;
    schedule: Schedule | undefined;
    /** For journals not tied to a schedule. */
    timezone: string;
    incident: { slug: string; id: string } | undefined;
    configFile?: string | undefined;
    pullRequest?: string | undefined;
  },
): AlertMessage {
  const { run, schedule, incident } = ctx;
  const planned = schedule?.kind === "preset" ? schedule : undefined;
  const preset = run?.preset ?? planned?.preset;
  const objective = run?.objective ?? planned?.objective;
  return buildAlertMessage(n, {
    ...(run && { run }),
    ...(preset !== undefined && { preset }),
    ...(objective !== undefined && { objective }),
    timezone: schedule?.timezone ?? ctx.timezone,
    ...(incident && { incident }),
    ...(ctx.configFile !== undefined && { configFile: ctx.configFile }),
    ...(schedule?.kind === "command" && { commandRun: true }),
    ...(ctx.pullRequest !== undefined && { pullRequest: ctx.pullRequest }),
  });
}
