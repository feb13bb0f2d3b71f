// `autoloop chain list|run`: the chains of a project's chains.toml, and running one.
import { resolve } from "node:path";
import { type ChainStep, readChainsFile } from "../harness/chains/chains-file.js";
import { exitCodeForClass } from "../journal/stop-reasons.js";
import { UserError } from "../util/errors.js";
import { flag, list, parse, str } from "./common.js";

const HELP = `Usage: autoloop chain <subcommand> [--work-dir DIR] [--json]

  autoloop chain list                         the chains in <work-dir>/chains.toml
  autoloop chain run <name> [objective...]    run a chain: each step a run of its own
      [--run-id ID] [--trigger cli|cron] [--parent-run-id ID] [--set key=value]
      [--env-file FILE] [--dry-run] [--quiet] [--json]

chains.toml (the public autoloop's format):

  [[chain]]
  name = "fix-then-review"
  steps = ["autofix", "review"]

  [[chain]]
  name = "plan-then-build"
  [[chain.step]]
  preset = "autospec"
  backend = { args = ["--model", "opus"] }   # per-step backend keys: command, args, agent,
  [[chain.step]]                             # prompt_mode, timeout_ms, model
  preset = "autocode"
  max_iterations = 20

  [budget]
  max_steps = 50                              # also max_runtime_ms

Each step's loop.start has trigger "chain" and parent_run_id the chain's run id; its
objective is the chain's, plus the previous step's result (handoff.md and result.md under
.autoloop/chains/<chain-run>/step-N/). A step passes on completion or max_iterations; any
other end stops the chain. The journal gets chain.start, chain.step.start, chain.step.finish
and chain.complete records under the chain's run id. \`autoloop run --chain a,b\` runs an
inline chain. A step whose preset allows it ([chain_spawn]) starts the chains its agent asked
for (chain.spawn) before the next step: docs/dynamic-chains.md. Exit codes as \`autoloop
run\`, from the chain's outcome.
`;

export async function chainCommand(argv: string[]): Promise<number> {
  const p = parse(
    argv,
    {
      "work-dir": { type: "string" },
      json: { type: "boolean" },
      "run-id": { type: "string" },
      "parent-run-id": { type: "string" },
      trigger: { type: "string" },
      set: { type: "string", multiple: true },
      "env-file": { type: "string", multiple: true },
      "dry-run": { type: "boolean" },
      quiet: { type: "boolean" },
    },
    "autoloop chain",
  );
  if (flag(p, "help")) {
    process.stdout.write(HELP);
    return 0;
  }
  const [sub, name, ...words] = p.positionals;
  const projectDir = resolve(str(p, "work-dir") ?? process.cwd());
  const file = readChainsFile(projectDir);
  if (sub === "list" || sub === undefined) {
    if (flag(p, "json")) process.stdout.write(`${JSON.stringify(file, null, 2)}\n`);
    else if (file.chains.length === 0)
      process.stdout.write(`no chains (${file.file} has no [[chain]])\n`);
    else
      for (const c of file.chains)
        process.stdout.write(`${c.name}: ${c.steps.map((s) => s.preset).join(" → ")}\n`);
    return 0;
  }
  if (sub !== "run")
    throw new UserError(`autoloop chain: unknown subcommand ${JSON.stringify(sub)}\n\n${HELP}`);
  if (name === undefined) throw new UserError(`autoloop chain run: missing <name>\n\n${HELP}`);
  const chain = file.chains.find((c) => c.name === name);
  if (chain === undefined)
    throw new UserError(
      `no chain ${JSON.stringify(name)} in ${file.file}; known: ${file.chains.map((c) => c.name).join(", ") || "none"}`,
    );
  return runChainCommand(p, { name, steps: chain.steps, objective: words.join(" "), projectDir });
}

/** Shared with `autoloop run --chain a,b`. */
export async function runChainCommand(
  p: ReturnType<typeof parse>,
  c: { name: string; steps: ChainStep[]; objective: string; projectDir: string },
): Promise<number> {
  const trigger = str(p, "trigger") ?? "cli";
  if (!["cli", "cron", "chain", "branch"].includes(trigger))
    throw new UserError(
      `--trigger must be cli, cron, chain or branch, found ${JSON.stringify(trigger)}`,
    );
  const { budget } = readChainsFile(c.projectDir);
  if (flag(p, "dry-run")) {
    const plan = {
      name: c.name,
      steps: c.steps,
      budget,
      withinBudget: c.steps.length <= budget.max_steps,
    };
    process.stdout.write(
      flag(p, "json")
        ? `${JSON.stringify(plan, null, 2)}\n`
        : `${c.name}: ${c.steps.map((s, i) => `${i + 1}. ${s.preset}`).join("  ")}${plan.withinBudget ? "" : `  (over budget: max_steps ${budget.max_steps})`}\n`,
    );
    return plan.withinBudget ? 0 : 1;
  }
  const { isValidRunId, newRunId } = await import("../harness/run-id.js");
  const chainRunId = str(p, "run-id") ?? newRunId();
  if (!isValidRunId(chainRunId))
    throw new UserError(`--run-id ${JSON.stringify(chainRunId)} is not a valid run id`);
  const { runChain } = await import("../harness/chains/chain-run.js");
  const { readEnvFiles } = await import("../util/env-file.js");
  const fileEnv = readEnvFiles(list(p, "env-file").map((f) => resolve(f)));
  const controller = new AbortController();
  const onSignal = () => controller.abort();
  process.on("SIGTERM", onSignal);
  process.on("SIGINT", onSignal);
  const quiet = flag(p, "quiet");
  // Each step, then the chains its agent asked for (`chain.spawn`), as its preset allows.
  const { runWithSpawns } = await import("../harness/chains/spawn-run.js");
  const result = await runChain({
    projectDir: c.projectDir,
    name: c.name,
    steps: c.steps,
    budget,
    objective: c.objective,
    chainRunId,
    trigger: trigger as "cli",
    parentRunId: str(p, "parent-run-id") ?? "",
    env: { ...process.env, ...fileEnv },
    secretEnv: fileEnv,
    signal: controller.signal,
    sets: list(p, "set"),
    runStepLoop: (o) => runWithSpawns(o, undefined, trigger as "cli"),
    ...(!quiet && { progress: (line: string) => process.stderr.write(`[autoloop] ${line}\n`) }),
  });
  if (flag(p, "json")) process.stdout.write(`${JSON.stringify(result)}\n`);
  return exitCodeForClass(result.outcome);
}
