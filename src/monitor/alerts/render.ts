// Turns an AlertMessage into the words people read: subject line, the list of facts, and
// the plain-text body. Messages arrive redacted (the outbox redacts them as it records them).
import { processRedactor, redactStrings } from "../../util/secrets.js";
import { printable } from "../../util/terminal-text.js";
import { kindLabel } from "./alert-kinds.js";
import type { AlertMessage } from "./message.js";
import { formatAlertTime } from "./time-text.js";

export interface RenderContext {
  /** Epoch ms the "n min ago" texts are relative to. */
  now: number;
}

export const OBJECTIVE_MAX = 200;
/** A plain-text body past this is cut, marked: a 200 KB question is no mail to read. */
const TEXT_MAX_CHARS = 64 * 1024;
export const JOURNAL_TAIL_LINES = 15;

/** Shortens to `max` characters, marking the cut with an ellipsis. */
export function shorten(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, Math.max(0, max - 1))}…`;
}

/** A deep copy of `message` with every string passed through the redactor. */
export function redactMessage(message: AlertMessage, redactor = processRedactor): AlertMessage {
  return redactStrings(message, redactor);
}

/** `[FIRING]`, `[RESOLVED]`, `[REMINDER 2]`, or `[TEST]`. */
export function statusTag(message: AlertMessage): string {
  if (message.kind === "test") return "[TEST]";
  if (message.status === "reminder") return `[REMINDER ${message.reminder ?? 1}]`;
  return `[${message.status.toUpperCase()}]`;
}

/** `[FIRING] gate stuck: nightly-fix run-20261121-0200-ab12` (one line, no control chars). */
export function renderSubject(message: AlertMessage): string {
  // A schedule's group is about the schedule: the subject stays the same run after run.
  const run = message.group?.by === "schedule" ? undefined : message.runId;
  const where = [message.schedule, run].filter((s) => s !== undefined && s !== "");
  const tail = where.length > 0 ? where.join(" ") : message.title;
  return printable(
    shorten(`${statusTag(message)} ${kindLabel(message.kind)}: ${tail}`, 200).replace(
      /[\r\n\t]+/g,
      " ",
    ),
  );
}

export interface Fact {
  label: string;
  value: string;
}

/** The labelled facts shown in every format, in reading order; absent ones are left out. */
export function alertFacts(message: AlertMessage, now: number): Fact[] {
  const facts: Fact[] = [];
  const add = (label: string, value: string | undefined) => {
    if (value !== undefined && value !== "") facts.push({ label, value });
  };
  add("Status", `${statusTag(message).slice(1, -1).toLowerCase()} (${kindLabel(message.kind)})`);
  add("Schedule", message.schedule);
  add("Preset", message.preset);
  add("Run", message.runId);
  add("Objective", message.objective && shorten(message.objective, OBJECTIVE_MAX));
  add("When", formatAlertTime(message.occurredAt, message.timezone, now));
  add("Cost", message.cost && costFact(message.cost));
  if (message.gate) {
    add("Gate", `${message.gate.topic}, refused ${message.gate.refusals} times`);
    add("Gate stuck since", formatAlertTime(message.gate.since, message.timezone, now));
  }
  if (message.retry !== undefined)
    add("Attempt", attemptFact(message.retry, message.timezone, now));
  if (message.group?.by === "schedule" && message.group.consecutiveFailures > 0) {
    add("Failed in a row", String(message.group.consecutiveFailures));
    add("Failing since", formatAlertTime(message.group.failingSince, message.timezone, now));
  }
  add("Pull request", message.pullRequest);
  add("Resolved by", message.resolution);
  add("Incident", message.incident && `${message.incident.slug} (${message.incident.id})`);
  add("Journal", message.journalPath);
  return facts;
}

/** "2 of 3; attempt 3 at 10:40 UTC", "3 of 3 (the last)". */
function attemptFact(r: NonNullable<AlertMessage["retry"]>, timezone: string, now: number): string {
  const of = `${r.attempt} of ${r.of}`;
  if (r.nextAt !== undefined)
    return `${of}; attempt ${r.attempt + 1} starts ${formatAlertTime(r.nextAt, timezone, now)}`;
  return r.attempt >= r.of ? `${of} (the last)` : `${of} (not retried)`;
}

/** "$0.0123 (4,567 tokens, 3 iterations)", with iterations of unknown cost said as such. */
function costFact(c: NonNullable<AlertMessage["cost"]>): string {
  const counts = `${c.tokens.toLocaleString("en-US")} tokens, ${c.iterations} iteration${c.iterations === 1 ? "" : "s"}`;
  if (c.unknownIterations >= c.iterations) return `unknown (${counts}; no cost reported)`;
  const unknown = c.unknownIterations > 0 ? `, ${c.unknownIterations} of unknown cost` : "";
  return `$${c.usd.toFixed(4)} (${counts}${unknown})`;
}

/** The shell commands to copy, labelled. */
export function alertCommands(message: AlertMessage): Fact[] {
  const { inspect, ack, stop, answer, guide, task } = message.commands;
  const out: Fact[] = [];
  if (answer) out.push({ label: "Answer", value: answer });
  if (task) out.push({ label: "Close the task", value: task });
  if (guide) out.push({ label: "Guide the run", value: guide });
  if (inspect) out.push({ label: "Inspect", value: inspect });
  if (ack) out.push({ label: "Acknowledge", value: ack });
  if (stop) out.push({ label: "Stop the run", value: stop });
  return out;
}

/** The plain-text body of mails and of the sink's log. */
export function renderText(message: AlertMessage, ctx: RenderContext): string {
  const lines = [message.title, "", message.summary, ""];
  const facts = alertFacts(message, ctx.now);
  const width = Math.max(...facts.map((f) => f.label.length)) + 2;
  for (const f of facts) lines.push(`${`${f.label}:`.padEnd(width)}${f.value}`);
  if (message.detail) lines.push("", message.detail);
  if (message.gate && message.gate.openTasks.length > 0) {
    lines.push("", "Open tasks:");
    for (const t of message.gate.openTasks) lines.push(`  - [${t.id}] ${t.text}`);
  }
  if (message.retry !== undefined && message.retry.attempts.length > 1) {
    lines.push("", "Attempts of this slot:");
    for (const a of message.retry.attempts) lines.push(`  - ${a}`);
  }
  if (message.group !== undefined && message.group.runs.length > 1) {
    lines.push("", "Runs in this incident (newest first):");
    for (const r of message.group.runs) lines.push(`  - ${r}`);
  }
  const tail = message.journalTail.slice(-JOURNAL_TAIL_LINES);
  if (tail.length > 0) {
    lines.push("", `Last ${tail.length} journal lines:`, ...tail.map((l) => `  ${l}`));
  }
  const commands = alertCommands(message);
  if (commands.length > 0) {
    lines.push("", "What to do:");
    for (const c of commands) lines.push(`  ${c.label}:`, `    ${c.value}`);
  }
  lines.push("", `-- autoloop-cron, alert ${message.fingerprint}`);
  // Plain text that ends up in terminals (the sink's .txt, a mail read with `mail`): the run's
  // words keep their lines, never an escape sequence; the message's own caps bound the size.
  return `${printable(lines.join("\n"), { multiline: true, maxChars: TEXT_MAX_CHARS })}\n`;
}
