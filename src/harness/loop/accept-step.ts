// The acceptance stage: a completion the agent claimed is parked (`completion.provisional`),
// checked by the preset's `[acceptance]` commands (`acceptance.*` records), then accepted
// (`completion.accepted`) or held (`completion.held`): the failures reach the next prompt as
// guidance and the run goes on, as the public autoloop's gate does. The commands come from
// the operator's preset only, never from anything the run can write.
import {
  acceptanceTimeoutMs,
  type CriterionCheck,
  criterionChecks,
  gateCommands,
} from "../preset/acceptance.js";
import { type FailedCheck, type HoldCause, heldGuidance, isClaim } from "./acceptance.js";
import { runAcceptanceCheck } from "./acceptance-check.js";
import { hookEnv } from "./hook-run.js";
import type { Terminal } from "./judge.js";
import { interruptedStop, overBudget, type Run } from "./run-state.js";

type Verdict =
  | { kind: "passed" }
  | { kind: "held"; cause: HoldCause; failed: FailedCheck[] }
  | { kind: "interrupted" };

/** The public `acceptance.command` keeps this much of a command's output (its end). */
const TAIL_CHARS = 2000;
const PASSED: Verdict = { kind: "passed" };

/** The routed terminal, unless it is a claimed completion the gate holds (the run goes on). */
export async function acceptStage(
  run: Run,
  iteration: number,
  routed: Terminal | undefined,
): Promise<Terminal | undefined> {
  if (routed === undefined || !routed.complete || !isClaim(routed.reason)) return routed;
  const { system } = run.journal;
  system("completion.provisional", iteration, {
    state: "awaiting_acceptance",
    reason: routed.reason,
  });
  const verdict = await gateVerdict(run, iteration);
  if (verdict.kind === "interrupted") return interruptedStop(run);
  if (verdict.kind === "passed") {
    // The public `release.ack` lives in the run's state dir, which the run's agent can write:
    // it would stand for a human without being one, so no acknowledgement is read from there.
    system("completion.accepted", iteration, { state: "accepted", human_ack: false });
    return routed;
  }
  const guidance = heldGuidance(verdict.cause, verdict.failed);
  run.journal.operator("operator.guidance", iteration, guidance, "operator");
  system("completion.held", iteration, { state: "held", cause: verdict.cause });
  run.progress(
    `iteration ${iteration}: completion held, ${verdict.failed.length} acceptance command(s) failed; the next iteration is told why`,
  );
  // The claim did not end the run; a spent budget still does.
  return overBudget(run);
}

/** The verify commands first; the criteria's checks only once they pass (the public order). */
async function gateVerdict(run: Run, iteration: number): Promise<Verdict> {
  const acceptance = run.preset.config.acceptance;
  const check = checker(run, iteration, acceptanceTimeoutMs(acceptance));
  const gate = await verifyCommands(run, iteration, gateCommands(acceptance), check);
  if (gate.kind !== "passed") return gate;
  return criteriaChecks(run, iteration, criterionChecks(acceptance), check);
}

type Check = (command: string) => ReturnType<typeof runAcceptanceCheck>;

function checker(run: Run, iteration: number, timeoutMs: number): Check {
  const env = hookEnv(run, { iteration });
  return (command) => runAcceptanceCheck(run, command, timeoutMs, env);
}

async function verifyCommands(
  run: Run,
  iteration: number,
  commands: readonly string[],
  check: Check,
): Promise<Verdict> {
  if (commands.length === 0) return PASSED;
  const { system } = run.journal;
  system("acceptance.start", iteration, { count: String(commands.length) });
  const failed: FailedCheck[] = [];
  for (const command of commands) {
    const ran = await check(command);
    if (ran.kind === "interrupted") return ran;
    const { exitCode, timedOut } = ran;
    const tail = ran.output.slice(-TAIL_CHARS);
    system("acceptance.command", iteration, {
      command,
      exit_code: String(exitCode),
      timed_out: timedOut,
      output_tail: tail,
    });
    if (exitCode !== 0) failed.push({ command, exitCode, timedOut, tail });
  }
  system("acceptance.result", iteration, {
    passed: failed.length === 0,
    failed: String(failed.length),
    total: String(commands.length),
  });
  return failed.length === 0 ? PASSED : { kind: "held", cause: "acceptance", failed };
}

/** `criteria` with a check: the public `acceptance.criterion` each, then `intent_result`. */
async function criteriaChecks(
  run: Run,
  iteration: number,
  criteria: readonly CriterionCheck[],
  check: Check,
): Promise<Verdict> {
  if (criteria.length === 0) return PASSED;
  const { system } = run.journal;
  const failed: FailedCheck[] = [];
  for (const c of criteria) {
    const ran = await check(c.check);
    if (ran.kind === "interrupted") return ran;
    const { exitCode, timedOut } = ran;
    system("acceptance.criterion", iteration, {
      text: c.text,
      check: c.check,
      exit_code: String(exitCode),
    });
    const tail = ran.output.slice(-TAIL_CHARS / 2);
    if (exitCode !== 0)
      failed.push({ command: c.check, exitCode, timedOut, tail, criterion: c.text });
  }
  system("acceptance.intent_result", iteration, {
    passed: failed.length === 0,
    failed: String(failed.length),
  });
  return failed.length === 0 ? PASSED : { kind: "held", cause: "intent", failed };
}
