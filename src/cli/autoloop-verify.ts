// `autoloop verify [run-id]`: re-runs a completed run's acceptance checks out of band and
// records the verdict (`postfire.verify`) in its journal; anything but "confirmed" exits 1.
import { join } from "node:path";
import { presetDigest } from "../harness/control/launch-record.js";
import { findRun } from "../harness/control/operator-requests.js";
import { readRuns } from "../harness/overview/runs.js";
import { checkCommands, runChecks, type VerifyResult } from "../harness/overview/verify.js";
import { acceptanceTimeoutMs } from "../harness/preset/acceptance.js";
import { JournalWriter } from "../journal/append.js";
import { journalTimestamp } from "../journal/codec.js";
import { UserError } from "../util/errors.js";
import { printable } from "../util/terminal-text.js";
import { flag, parse, workDirOf } from "./common.js";

const HELP = `Usage: autoloop verify [run-id] [--work-dir DIR] [--json] [--accept-preset-changes]

Checks a completed run's claim again, out of band: runs its preset's acceptance commands
([acceptance] verify_cmds, verify_cmd, and the "text :: command" of criteria; timeout:
[acceptance] timeout, default 5m) with /bin/sh in the run's work dir, and appends
postfire.verify (reconcile, ran_checks, failed) to the run's journal. Without a run id:
the most recently updated completed run. The preset, its config layers and the work dir
come from the run's launch record (kept outside the project), never from the registry;
a preset whose settings changed since the run started (or a run started with --set or a
budget flag) is refused unless --accept-preset-changes: its checks are commands to run.

reconcile: confirmed (every check passed), false_done (one failed), unverifiable (no
checks configured). --json prints {"run_id", "reconcile", "ranChecks", "failures"}.

Exit codes: 0 confirmed, 1 false_done, unverifiable, a usage mistake or no such run,
2 the run has no launch record here (started by another harness, account or host), or
its preset changed.
`;

function runIdOf(workDir: string, given: string | undefined): string {
  if (given !== undefined) return given;
  const done = readRuns(workDir).find((r) => r.status === "completed");
  if (done === undefined)
    throw new UserError(`autoloop verify: no completed run to verify in ${workDir}`, 1);
  return done.run_id;
}

function report(runId: string, r: VerifyResult, workDir: string): string {
  const head = `## Post-fire verify — ${runId} → ${r.reconcile}`;
  if (r.reconcile === "unverifiable")
    return `${head}\n\nNo deterministic acceptance checks configured; the completed claim cannot be independently verified. Add [acceptance] verify_cmds to the preset.`;
  if (r.reconcile === "confirmed")
    return `${head}\n\n${r.ranChecks} check(s) passed in ${workDir}.`;
  const lines = r.failures.map((f) => `- \`${f.command}\` exited ${f.exitCode}:\n${f.tail}`);
  return `${head}\n\nFALSE DONE: ${r.failures.length}/${r.ranChecks} check(s) failed in ${workDir}:\n${lines.join("\n\n")}`;
}

export async function verifyCommand(argv: string[]): Promise<number> {
  const p = parse(
    argv,
    {
      json: { type: "boolean" },
      "work-dir": { type: "string" },
      "accept-preset-changes": { type: "boolean" },
    },
    "autoloop verify",
    1,
  );
  if (flag(p, "help")) {
    process.stdout.write(HELP);
    return 0;
  }
  if (p.positionals.length > 1)
    throw new UserError(
      `autoloop verify: expected at most one run id; see \`autoloop verify --help\``,
      1,
    );
  const workDir = workDirOf(p, "autoloop verify");
  const journal = join(workDir, ".autoloop", "journal.jsonl");
  const ref = findRun(journal, runIdOf(workDir, p.positionals[0]));
  if (ref.launch === undefined)
    throw new UserError(
      `autoloop verify: run ${ref.runId} has no launch record here; verify takes its preset and work dir from there, never from the registry the run writes`,
      2,
    );
  const { loadPreset } = await import("../harness/preset/preset.js");
  const { runLayers } = await import("../harness/preset/layers.js");
  const { presetDir, workDir: runDir, trigger } = ref.launch;
  const preset = loadPreset(presetDir, runLayers(presetDir, runDir, trigger).sets);
  // The checks are commands: a preset changed since the run started (its agent may have) is
  // not taken without the operator's word, as \`resume\` does.
  if (presetDigest(preset) !== ref.launch.presetDigest && !flag(p, "accept-preset-changes"))
    throw new UserError(
      `autoloop verify: preset ${ref.launch.preset} (${presetDir}) or its config layers changed since run ${ref.runId} started (or it ran with --set or budget flags); check [acceptance] there, then verify with --accept-preset-changes`,
      2,
    );
  const acceptance = (preset.config as Record<string, unknown>).acceptance;
  const result = await runChecks(
    runDir,
    checkCommands(acceptance),
    acceptanceTimeoutMs(acceptance),
  );
  new JournalWriter(journal).append({
    shape: "system",
    run: ref.runId,
    topic: "postfire.verify",
    ts: journalTimestamp(),
    v: 1,
    fields: {
      reconcile: result.reconcile,
      ran_checks: String(result.ranChecks),
      failed: String(result.failures.length),
    },
  });
  if (flag(p, "json"))
    process.stdout.write(`${JSON.stringify({ run_id: ref.runId, ...result }, null, 2)}\n`);
  else
    process.stdout.write(`${printable(report(ref.runId, result, runDir), { multiline: true })}\n`);
  return result.reconcile === "confirmed" ? 0 : 1;
}
