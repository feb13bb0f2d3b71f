// `autoloop triage`: the first calls an operator (or an agent) makes, in one: the live runs,
// their health, doctor's checks, per-preset stats and the commands to run next.
import { join } from "node:path";
import { presetStats } from "../harness/artifacts/stats.js";
import { doctorChecks } from "../harness/overview/doctor.js";
import { classifyRuns, healthJson } from "../harness/overview/health.js";
import {
  autoloopDirOf,
  isLive,
  processCheckHere,
  readRuns,
  runSummary,
} from "../harness/overview/runs.js";
import { readJournal } from "../journal/reader.js";
import { printable } from "../util/terminal-text.js";
import { flag, parse, workDirOf } from "./common.js";

const HELP = `Usage: autoloop triage [--work-dir DIR] [--json]

One call for a work dir's state: the live runs (\`loops\`), their health (\`loops health\`),
the environment (\`doctor\`), per-preset outcomes (\`stats\`), and the commands worth running
next. --json gives all of it: quick_ref, runs, health, doctor, stats, recommended_commands.

Exit codes: 0 success (whatever the runs' state), 1 a usage mistake.
`;

export function triage(workDir: string, now: number) {
  const runs = readRuns(workDir);
  const doctor = doctorChecks({
    workDir,
    env: process.env,
    nodeVersion: process.versions.node,
    running: processCheckHere(),
  });
  const failures = doctor.filter((c) => c.status === "fail").length;
  const warnings = doctor.filter((c) => c.status === "warn").length;
  const live = runs.filter(isLive);
  const commands =
    live.length > 0
      ? [`autoloop loops show ${live[0]!.run_id} --json`, `autoloop loops watch ${live[0]!.run_id}`]
      : ["autoloop list --json", 'autoloop run <preset> "your task"'];
  if (failures + warnings > 0) commands.push("autoloop doctor --json");
  const health = healthJson(classifyRuns(runs, now, processCheckHere()));
  if (health.stuck.count + health.recent_failed.count > 0) commands.push("autoloop loops health");
  const { items } = readJournal(join(autoloopDirOf(workDir), "journal.jsonl"));
  return {
    quick_ref: {
      active_runs: live.length,
      total_runs: runs.length,
      doctor_failures: failures,
      doctor_warnings: warnings,
    },
    runs: live.map(runSummary),
    health,
    doctor,
    stats: presetStats(items),
    recommended_commands: commands,
  };
}

export async function triageCommand(argv: string[]): Promise<number> {
  const p = parse(
    argv,
    { json: { type: "boolean" }, "work-dir": { type: "string" } },
    "autoloop triage",
    1,
  );
  if (flag(p, "help")) {
    process.stdout.write(HELP);
    return 0;
  }
  const workDir = workDirOf(p, "autoloop triage");
  const t = triage(workDir, Date.now());
  if (flag(p, "json")) {
    process.stdout.write(`${JSON.stringify(t, null, 2)}\n`);
    return 0;
  }
  const q = t.quick_ref;
  const lines = [
    `autoloop triage — ${workDir}`,
    "",
    `  active runs:     ${q.active_runs} (${q.total_runs} total)`,
    `  stuck / failed:  ${t.health.stuck.count} stuck, ${t.health.recent_failed.count} failed in the last 24h`,
    `  doctor:          ${q.doctor_failures} failure(s), ${q.doctor_warnings} warning(s)`,
    "",
    "Next commands:",
    ...t.recommended_commands.map((c) => `  ${c}`),
    "",
    "Full detail: autoloop triage --json",
  ];
  process.stdout.write(`${printable(lines.join("\n"), { multiline: true })}\n`);
  return 0;
}
