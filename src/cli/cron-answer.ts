// `autoloop-cron answer`, `guide` and `interrupt`: talk back to a live run from on-call's
// terminal, through the same path as the status page and MCP (src/operator/run-control.ts).
import { cliOperator } from "../harness/control/operator-requests.js";
import { answerRun, guideRun, interruptRun, taskOfRun } from "../operator/run-control.js";
import { UserError } from "../util/errors.js";
import { printable } from "../util/terminal-text.js";
import { flag, str } from "./common.js";
import { configOf, parseCron } from "./cron-common.js";

const ANSWER_HELP = `Usage: autoloop-cron answer <run-id> "<answer>" [--question ID]

Answers the question a run waits on (an agent that emitted human.ask; its page says
so). The run reads the answer within a second, journals it with who answered
(ask.answered, answered_by), and goes on with it in its next prompt. Refused, with
nothing written, when the run waits on no question (or on another than --question),
or the answer is empty.

Examples:
  autoloop-cron answer nightly-fix-20261127T0200-a1b2c "Yes, ship it"
`;

const GUIDE_HELP = `Usage: autoloop-cron guide <run-id> "<guidance>" [--no-interrupt]

Guidance for a live run's next iteration (journaled as operator.guidance, with who sent
it). By default the agent's current turn is stopped so that the next one starts with
it; --no-interrupt lets the current turn finish first. Use it on a run stuck at its
completion gate ("task-2 is done; complete it and finish").
`;

const INTERRUPT_HELP = `Usage: autoloop-cron interrupt <run-id> [reason...]

Stops the agent's current turn; the run goes on with its next iteration (to stop the
whole run: autoloop-cron stop).
`;

/** A result line: it quotes the run's words (its question, a task), so no terminal escapes. */
function say(line: string): void {
  process.stdout.write(`${printable(line)}\n`);
}

function runArg(p: { positionals: string[] }, usage: string): string {
  const id = p.positionals[0];
  if (id === undefined) throw new UserError(`missing <run-id>; usage: ${usage}`);
  return id;
}

export async function answerCommand(argv: string[]): Promise<number> {
  const p = parseCron(argv, {
    name: "answer",
    help: ANSWER_HELP,
    options: { question: { type: "string" } },
  });
  if (p === undefined) return 0;
  const usage = 'autoloop-cron answer <run-id> "<answer>"';
  const runId = runArg(p, usage);
  const text = p.positionals.slice(1).join(" ");
  if (text.trim() === "") throw new UserError(`missing the answer; usage: ${usage}`);
  const line = answerRun(configOf(p), runId, text, cliOperator(), str(p, "question"));
  say(line);
  return 0;
}

export async function guideCommand(argv: string[]): Promise<number> {
  const p = parseCron(argv, {
    name: "guide",
    help: GUIDE_HELP,
    options: { "no-interrupt": { type: "boolean" } },
  });
  if (p === undefined) return 0;
  const usage = 'autoloop-cron guide <run-id> "<guidance>"';
  const runId = runArg(p, usage);
  const text = p.positionals.slice(1).join(" ");
  if (text.trim() === "") throw new UserError(`missing the guidance; usage: ${usage}`);
  const options = { interrupt: !flag(p, "no-interrupt") };
  say(guideRun(configOf(p), runId, text, cliOperator(), options));
  return 0;
}

export async function interruptCommand(argv: string[]): Promise<number> {
  const p = parseCron(argv, { name: "interrupt", help: INTERRUPT_HELP });
  if (p === undefined) return 0;
  const runId = runArg(p, "autoloop-cron interrupt <run-id> [reason...]");
  const reason = p.positionals.slice(1).join(" ") || "operator interrupt";
  say(interruptRun(configOf(p), runId, reason, cliOperator()));
  return 0;
}

const TASK_HELP = `Usage: autoloop-cron task <run-id> complete|remove <task-id> [reason...]

Completes or removes a task of a live run: the way on-call unblocks a run stuck at its
completion gate on a task only a human could close (its page names the open tasks). The
run's next prompt says who did it.

Examples:
  autoloop-cron task nightly-fix-20261127T0200-a1b2c complete task-2
  autoloop-cron task nightly-fix-20261127T0200-a1b2c remove task-3 not needed this week
`;

export async function taskCommand(argv: string[]): Promise<number> {
  const p = parseCron(argv, { name: "task", help: TASK_HELP });
  if (p === undefined) return 0;
  const [runId, action, taskId, ...reason] = p.positionals;
  if (runId === undefined || (action !== "complete" && action !== "remove") || taskId === undefined)
    throw new UserError(`usage: autoloop-cron task <run-id> complete|remove <task-id> [reason...]`);
  say(taskOfRun(configOf(p), runId, action, taskId, cliOperator(), reason.join(" ")));
  return 0;
}
