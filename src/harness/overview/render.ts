// The text the `loops` verbs print: a line per run, a run's detail, its files, the health
// summary. Every field came from a run, so each is made printable before it is shown.
import { join } from "node:path";
import type { RegistryEntry } from "../../journal/registry-view.js";
import { printable } from "../../util/terminal-text.js";
import type { Health } from "./health.js";
import { text } from "./runs.js";

const cell = (value: unknown, width: number) => {
  const s = printable(text(value));
  return (s.length > width ? `${s.slice(0, width - 2)}..` : s).padEnd(width);
};

export function runListHeader(): string {
  return ["RUN ID", "STATUS", "PRESET", "WT", "ITER", "LATEST EVENT", "STARTED", "UPDATED"]
    .map((h, i) => h.padEnd([24, 10, 14, 4, 8, 18, 20, 0][i]!))
    .join("  ")
    .trimEnd();
}

export function runLine(r: RegistryEntry): string {
  return [
    cell(r.run_id, 24),
    cell(r.status, 10),
    cell(r.preset, 14),
    (r.isolation_mode === "worktree" ? "WT" : "--").padEnd(4),
    cell(`iter:${text(r.iteration)}`, 8),
    cell(r.latest_event, 18),
    cell(r.created_at, 20),
    printable(text(r.updated_at)),
  ].join("  ");
}

export function runList(runs: readonly RegistryEntry[], all: boolean): string {
  if (runs.length === 0) return all ? "No runs found." : "No active runs.";
  return [runListHeader(), ...runs.map(runLine)].join("\n");
}

const field = (label: string, value: unknown) =>
  `${`${label}:`.padEnd(12)}${printable(text(value), { multiline: false })}`;

export function runDetail(r: RegistryEntry): string {
  const args = Array.isArray(r.backend_args) ? r.backend_args.map(text).join(" ") : "";
  const lines = [
    field("Run", r.run_id),
    field("Status", r.status),
    field("Preset", r.preset),
    field("Objective", text(r.objective).slice(0, 120)),
    field("Trigger", r.trigger),
    field("Backend", r.backend),
    field("Args", args === "" ? "(none)" : args),
    field("Iteration", r.iteration ?? 0),
    field("Latest", r.latest_event),
  ];
  if (text(r.stop_reason) !== "") lines.push(field("Stop", r.stop_reason));
  lines.push(field("Isolation", text(r.isolation_mode) || "run-scoped"));
  if (text(r.worktree_name) !== "") lines.push(field("Worktree", r.worktree_name));
  if (text(r.worktree_path) !== "") lines.push(field("WT Path", r.worktree_path));
  lines.push(field("Created", r.created_at), field("Updated", r.updated_at));
  lines.push(field("Work dir", r.work_dir), field("State dir", r.state_dir));
  if (text(r.parent_run_id) !== "") lines.push(field("Parent", r.parent_run_id));
  if (r.pid !== undefined) lines.push(field("Pid", r.pid));
  return lines.join("\n");
}

/** A run's files: `loops artifacts`. */
export function runArtifacts(r: RegistryEntry, autoloopDir: string): Record<string, string> {
  return {
    run_id: r.run_id,
    journal_file: text(r.journal_file),
    registry_file: join(autoloopDir, "registry.jsonl"),
    state_dir: text(r.state_dir) || autoloopDir,
    work_dir: text(r.work_dir),
  };
}

export function runArtifactsText(a: Record<string, string>): string {
  return [
    field("Journal", a.journal_file),
    field("Registry", a.registry_file),
    field("State dir", a.state_dir),
    field("Work dir", a.work_dir),
  ].join("\n");
}

const SECTIONS: Array<[keyof Health, string]> = [
  ["stuck", "STUCK:"],
  ["watching", "WATCHING:"],
  ["recent_failed", "FAILED:"],
  ["active", "ACTIVE:"],
];

/** Exceptions first; one "All clear" line when there are none. */
export function healthText(h: Health, verbose: boolean): string {
  const n = (b: keyof Health) => h[b].length;
  const exceptions = n("stuck") + n("watching") + n("recent_failed");
  if (exceptions === 0 && !verbose)
    return `All clear. ${n("active")} active, ${n("recent_completed")} completed in last 24h.`;
  const lines = [
    `Health: ${n("active")} active, ${n("watching")} watching, ${n("stuck")} stuck, ${n("recent_failed")} failed (last 24h)`,
  ];
  const sections: Array<[keyof Health, string]> = verbose
    ? [...SECTIONS, ["recent_completed", "COMPLETED (last 24h):"]]
    : SECTIONS;
  for (const [bucket, title] of sections) {
    if (h[bucket].length === 0) continue;
    lines.push("", title, runListHeader(), ...h[bucket].map(runLine));
  }
  return lines.join("\n");
}
