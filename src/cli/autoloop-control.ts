// `autoloop control`: a live run's control plane, as the public autoloop has it: show what a
// run can do and what it was asked, answer its question, guide it, interrupt its agent.

import { readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import {
  cliOperator,
  findRun,
  guide,
  interrupt,
  openQuestion,
  registryTarget,
  requestPaths,
  respond,
} from "../harness/control/operator-requests.js";
import { type Capabilities, controlPaths, readControl } from "../harness/control/requests.js";
import { UserError } from "../util/errors.js";
import { printable } from "../util/terminal-text.js";
import { flag, parse, str } from "./common.js";

const HELP = `Usage:
  autoloop control show <run-id>               Show status + capabilities
  autoloop control capabilities <run-id>       Show backend capabilities only
  autoloop control interrupt <run-id> [-m <reason>]
  autoloop control guide <run-id> "<message>" [--no-interrupt]
  autoloop control respond <run-id> <question-id> "<answer>"  Answer a human.ask

A run id may be given by a unique prefix. The run is looked up in the registry of
the work dir (AUTOLOOP_PROJECT_DIR, --work-dir, or the current dir).

  respond    answers the question the run waits on (refused, nothing written, when
             it waits on none, on another question, or the answer is empty)
  guide      journals operator.guidance for the run's next prompt and stops the
             agent's current turn so the next one starts with it (--no-interrupt:
             the current turn finishes first)
  interrupt  stops the agent's current turn; the run goes on with its next iteration

Options: --work-dir DIR, --json (show), -m/--reason TEXT (interrupt)
Exit codes: 0 done, 1 refused (unknown run, not waiting, not running...), 2 usage.
`;

/** What every subcommand is handed: the parsed line, its other words, where the run is. */
interface ControlContext {
  p: ReturnType<typeof parse>;
  sub: string;
  args: string[];
  runArg: string | undefined;
  journal: string;
  by: string;
}

const usage = (line: string) => new UserError(`Usage: ${line}`, 1);

function respondCommand({ args, runArg, journal, by }: ControlContext): number {
  const [questionId, ...words] = args;
  if (runArg === undefined || questionId === undefined || words.join(" ") === "")
    throw usage(`autoloop control respond <run-id> <question-id> "<answer>"`);
  const ref = findRun(journal, runArg);
  respond(ref, words.join(" "), by, questionId);
  process.stdout.write(`Response delivered to ${ref.runId} for question ${questionId}.\n`);
  return 0;
}

function guideCommand({ p, args, runArg, journal, by }: ControlContext): number {
  const message = args.join(" ").trim();
  if (runArg === undefined || message === "")
    throw usage(`autoloop control guide <run-id> "<message>" [--no-interrupt]`);
  const ref = findRun(journal, runArg);
  const wanted = !flag(p, "no-interrupt");
  const woken = guide(ref, message, by, { interrupt: wanted, target: registryTarget(ref) });
  const note = !wanted
    ? "(interrupt skipped by --no-interrupt)"
    : woken.woken
      ? "(interrupt requested — the agent's current turn is stopped)"
      : `(the run reads it at its next iteration); not interrupted: ${woken.why}`;
  process.stdout.write(`Guidance queued for ${ref.runId} ${note}.\n`);
  return 0;
}

function interruptCommand({ p, runArg, journal, by }: ControlContext): number {
  if (runArg === undefined) throw usage("autoloop control interrupt <run-id> [-m <reason>]");
  const ref = findRun(journal, runArg);
  const woken = interrupt(ref, str(p, "reason") ?? "", by, registryTarget(ref));
  process.stdout.write(
    woken.woken
      ? `Interrupt requested for ${ref.runId} (backend: ${capabilities(ref.stateDir)?.backend ?? "unknown"}).\n`
      : `Interrupt request queued for ${ref.runId}; the run reads it at its next iteration (not signalled: ${woken.why}).\n`,
  );
  return 0;
}

function capabilitiesCommand({ p, sub, runArg, journal }: ControlContext): number {
  if (runArg === undefined) throw usage(`autoloop control ${sub} <run-id>`);
  const caps = capabilities(findRun(journal, runArg).stateDir);
  process.stdout.write(
    flag(p, "json")
      ? `${JSON.stringify(caps ?? null)}\n`
      : printable(renderCaps(caps), { multiline: true, maxChars: Infinity }),
  );
  return 0;
}

function showCommand({ p, runArg, journal }: ControlContext): number {
  if (runArg === undefined) throw usage("autoloop control show <run-id>");
  const ref = findRun(journal, runArg);
  const caps = capabilities(ref.stateDir);
  const pending = openQuestion(ref);
  const { requests, statuses } = readControl(requestPaths(ref));
  if (flag(p, "json")) {
    process.stdout.write(
      `${JSON.stringify({ run: ref, capabilities: caps ?? null, question: pending ?? null, requests, statuses })}\n`,
    );
    return 0;
  }
  const acked = new Set(statuses.map((s) => s.id));
  const lines = [
    `Run:         ${ref.runId}`,
    `Status:      ${pending ? "waiting for an answer" : ref.status}`,
    ...(ref.pid !== undefined ? [`PID:         ${ref.pid}`] : []),
    ...(pending
      ? [
          `Question:    ${pending.questionId}: ${printable(pending.question, { multiline: true })}`,
          `Answer with: autoloop control respond ${ref.runId} ${pending.questionId} "<answer>"`,
        ]
      : []),
    "",
    renderCaps(caps).trimEnd(),
    "",
    "Recent control activity:",
    ...requests
      .filter((r) => !acked.has(r.id))
      .map((r) => `  pending  ${r.verb.padEnd(10)} ${r.id}  ${r.reason}`),
    ...statuses
      .slice(-5)
      .map(
        (s) =>
          `  ${s.state.padEnd(8)} ${s.verb.padEnd(10)} ${s.id}${s.detail ? ` — ${s.detail}` : ""}`,
      ),
  ];
  if (requests.length === 0 && statuses.length === 0) lines.push("  (none)");
  // Every word here is the run's (its registry, journal, control files): no terminal escapes.
  process.stdout.write(`${printable(lines.join("\n"), { multiline: true, maxChars: Infinity })}\n`);
  return 0;
}

const SUBCOMMANDS: Record<string, (c: ControlContext) => number> = {
  respond: respondCommand,
  guide: guideCommand,
  interrupt: interruptCommand,
  show: showCommand,
  capabilities: capabilitiesCommand,
  caps: capabilitiesCommand,
};

export async function controlCommand(argv: string[]): Promise<number> {
  const p = parse(
    argv,
    {
      "work-dir": { type: "string" },
      "no-interrupt": { type: "boolean" },
      reason: { type: "string", short: "m" },
      run: { type: "string" },
      json: { type: "boolean" },
    },
    "autoloop control",
  );
  const [sub, ...args] = p.positionals;
  if (sub === undefined || flag(p, "help")) {
    process.stdout.write(HELP);
    return sub === undefined && !flag(p, "help") ? 2 : 0;
  }
  const subcommand = Object.hasOwn(SUBCOMMANDS, sub) ? SUBCOMMANDS[sub] : undefined;
  if (subcommand === undefined)
    throw new UserError(`Unknown control subcommand: ${sub}\n\n${HELP}`, 1);
  const workDir = resolve(str(p, "work-dir") ?? process.env.AUTOLOOP_PROJECT_DIR ?? ".");
  const journal = join(workDir, ".autoloop", "journal.jsonl");
  const runArg = str(p, "run") ?? args.shift();
  return subcommand({ p, sub, args, runArg, journal, by: cliOperator() });
}

function capabilities(stateDir: string): Capabilities | undefined {
  try {
    return JSON.parse(readFileSync(controlPaths(stateDir).capabilities, "utf8")) as Capabilities;
  } catch {
    return undefined;
  }
}

function renderCaps(caps: Capabilities | undefined): string {
  if (caps === undefined) return "Capabilities: (none published yet — run may not be live)\n";
  const line = (verb: string, c: { supported: boolean; detail?: string }) =>
    `  ${verb.padEnd(10)} ${c.supported ? "yes" : "no "}${c.detail ? ` — ${c.detail}` : ""}`;
  return `${[
    `Capabilities (backend: ${caps.backend}):`,
    line("guidance", caps.guidance),
    line("interrupt", caps.interrupt),
    line("inspect", caps.inspect),
    `  published  ${caps.publishedAt}`,
  ].join("\n")}\n`;
}
