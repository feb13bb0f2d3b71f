// `autoloop worktree list|show|diff|merge|clean`: the worktrees of runs in worktree isolation.
import { join, resolve } from "node:path";
import {
  cleanWorktrees,
  mergeWorktree,
  pruneWorktrees,
  type RemovedWorktree,
} from "../harness/worktree/merge.js";
import {
  listWorktrees,
  MERGE_STRATEGIES,
  type MergeStrategy,
  readMeta,
  statusOf,
  type WorktreeMeta,
  worktreeDiff,
} from "../harness/worktree/worktree.js";
import { UserError } from "../util/errors.js";
import { flag, type Parsed, parse, str } from "./common.js";

const HELP = `Usage: autoloop worktree <subcommand> [--work-dir DIR] [--json]

  autoloop worktree list                          every run worktree: status, branch, base
  autoloop worktree show <run-id>                 one worktree's metadata
  autoloop worktree diff <run-id> [--stat]        the run's changes against its base branch
  autoloop worktree merge <run-id> [--strategy squash|merge|rebase]
                                                  bring the run's branch into its base branch
  autoloop worktree clean [<run-id>] [--all] [--force]
                                                  remove worktrees and their branches
  autoloop worktree clean --keep N                remove every ended run's but the N newest

A run gets a worktree with \`autoloop run <preset> --worktree\` (or core.isolation_mode =
"worktree", or [worktree] enabled = true in its autoloops.toml): the agent works in
.autoloop/worktrees/<run-id>/tree on branch autoloop/<run-id>. At its end what it left
uncommitted is committed on that branch; --automerge (worktree.automerge) merges it when the
run completes. A merge needs the base branch checked out and clean; one that conflicts is
aborted and names the files. clean takes merged, failed and orphaned worktrees (--all: also
completed ones; a running one only with --force). A completed run stays without --all because
its changes may live on its branch only; a branch that is not merged is kept unless --force.
worktree.keep (default 10; a schedule's set = { "worktree.keep" = 3 }) does clean --keep at
the end of every worktree run.

Examples:
  autoloop run autofix "make the tests pass" --worktree
  autoloop worktree diff 20261125-ab12cd --stat
  autoloop worktree merge 20261125-ab12cd --strategy rebase
`;

function removedLine(m: RemovedWorktree): string {
  return m.branch_kept
    ? `removed ${m.run_id}; its branch ${m.branch} is not merged and stays (\`git branch -D ${m.branch}\`, or clean --force)\n`
    : `removed ${m.run_id} (${m.branch})\n`;
}

function line(m: WorktreeMeta): string {
  const merged = m.merged_at ? `, merged ${m.merged_at}` : "";
  return `${m.run_id}  ${m.status}  ${m.branch} (from ${m.base_branch}, ${m.merge_strategy})  ${m.worktree_path}${merged}`;
}

export async function worktreeCommand(argv: string[]): Promise<number> {
  const p = parse(
    argv,
    {
      "work-dir": { type: "string" },
      json: { type: "boolean" },
      stat: { type: "boolean" },
      strategy: { type: "string" },
      all: { type: "boolean" },
      force: { type: "boolean" },
      keep: { type: "string" },
    },
    "autoloop worktree",
  );
  const [sub = "list", runId] = p.positionals;
  if (flag(p, "help")) {
    process.stdout.write(HELP);
    return 0;
  }
  const projectDir = resolve(str(p, "work-dir") ?? process.cwd());
  const autoloopDir = join(projectDir, ".autoloop");
  const json = flag(p, "json");
  const out = (value: unknown, text: string) =>
    process.stdout.write(json ? `${JSON.stringify(value, null, 2)}\n` : text);
  const need = () => {
    if (runId === undefined)
      throw new UserError(`autoloop worktree ${sub}: missing <run-id>\n\n${HELP}`);
    return runId;
  };
  switch (sub) {
    case "list": {
      const all = listWorktrees(autoloopDir);
      out(all, all.length === 0 ? "no worktrees\n" : `${all.map(line).join("\n")}\n`);
      return 0;
    }
    case "show": {
      const meta = readMeta(autoloopDir, need());
      out(
        meta,
        `${Object.entries(meta)
          .map(([k, v]) => `${k}: ${v ?? "-"}`)
          .join("\n")}\n`,
      );
      return 0;
    }
    case "diff":
      process.stdout.write(worktreeDiff(autoloopDir, need(), flag(p, "stat")));
      return 0;
    case "merge":
      return mergeCommand(p, projectDir, autoloopDir, need(), out);
    case "clean":
      return cleanCommand(p, projectDir, autoloopDir, runId, out);
    default:
      throw new UserError(
        `autoloop worktree: unknown subcommand ${JSON.stringify(sub)}\n\n${HELP}`,
      );
  }
}

type Out = (value: unknown, text: string) => void;

function mergeCommand(
  p: Parsed,
  projectDir: string,
  autoloopDir: string,
  runId: string,
  out: Out,
): number {
  const strategy = str(p, "strategy");
  if (strategy !== undefined && !(MERGE_STRATEGIES as readonly string[]).includes(strategy))
    throw new UserError(
      `autoloop worktree merge: --strategy must be one of ${MERGE_STRATEGIES.join(", ")}, found ${JSON.stringify(strategy)}`,
    );
  const meta = mergeWorktree(projectDir, autoloopDir, runId, strategy as MergeStrategy);
  const settled = (meta.recovered ?? []).map((note) => `settled first: ${note}\n`).join("");
  out(
    meta,
    `${settled}merged ${meta.branch} into ${meta.base_branch} (${strategy ?? meta.merge_strategy})\n`,
  );
  return 0;
}

function cleanCommand(
  p: Parsed,
  projectDir: string,
  autoloopDir: string,
  runId: string | undefined,
  out: Out,
): number {
  const opts = { all: flag(p, "all"), force: flag(p, "force") };
  const keep = str(p, "keep");
  if (keep !== undefined && !/^\d+$/.test(keep))
    throw new UserError(
      `autoloop worktree clean: --keep takes a number of ended runs to keep, found ${JSON.stringify(keep)}`,
    );
  const removed =
    keep !== undefined
      ? pruneWorktrees(projectDir, autoloopDir, Number(keep))
      : cleanWorktrees(projectDir, autoloopDir, runId ? { ...opts, runId } : opts);
  const left = listWorktrees(autoloopDir).filter((m) => statusOf(m) === "completed");
  const kept =
    left.length === 0 || runId !== undefined
      ? ""
      : `kept ${left.length} completed run(s) whose changes may be on their branch only (${left.map((m) => m.run_id).join(", ")}): \`autoloop worktree merge <run-id>\` brings one in, clean --all drops them\n`;
  out(
    removed,
    `${removed.length === 0 ? "nothing to clean\n" : removed.map(removedLine).join("")}${kept}`,
  );
  return 0;
}
