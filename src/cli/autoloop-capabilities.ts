// `autoloop capabilities`: the CLI's contract as one stable JSON document (commands, which
// print JSON and which change files, exit codes, variables, agent kinds), for agents to read.
import { AGENT_IDS } from "../harness/agents/index.js";
import { flag, parse } from "./common.js";
import { packageVersion } from "./version.js";

const HELP = `Usage: autoloop capabilities [--json]

Prints the machine-readable CLI contract: the commands, which take --json and which change
files, the exit-code dictionary, the environment variables, and the agent kinds this harness
runs. JSON only (--json is accepted and changes nothing); the same bytes every time.
`;

type Command = [name: string, summary: string, json: boolean, mutating: boolean];

const COMMANDS: Command[] = [
  ["run", "Run a preset loop in a work dir", true, true],
  ["resume", "Go on with a run that stopped", false, true],
  ["init", "Copy a preset to presets/ to change it", false, true],
  ["preset", "Promote a single-file preset into a named user preset", false, true],
  ["list", "List the presets a run can use here", true, false],
  ["loops", "List/show/watch runs; artifacts; health summary", true, false],
  ["triage", "One-call status: runs + health + doctor + stats + next commands", true, false],
  ["doctor", "Environment and state diagnostics", true, false],
  ["verify", "Re-run a completed run's acceptance checks out of band", true, true],
  ["inspect", "A work dir's journal, tasks, runs, usage and a run's artifacts", true, false],
  ["stats", "Per preset: outcomes, iterations, cost", true, false],
  ["memory", "Loop memory, project and run", true, true],
  ["task", "Per-run tasks", true, true],
  ["emit", "Publish an event (inside a loop)", false, true],
  ["agents", "The agent CLIs and their argv", true, false],
  ["worktree", "List/show/diff/merge/clean run worktrees", true, true],
  ["chain", "List or run preset chains", true, true],
  ["runs", "A schedule's runs (list, replay); clean run-scoped folders", true, true],
  ["control", "A live run: answer, guide, interrupt", true, true],
  ["config", "Show or edit the user config and preset overrides", true, true],
  ["hooks", "A preset's lifecycle hooks: list, show, validate; clear a run's suspend", true, true],
  ["capabilities", "This contract document", true, false],
];

export function capabilities(): Record<string, unknown> {
  return {
    name: "autoloop",
    version: packageVersion(),
    contract_version: 1,
    exit_codes: {
      "0": "success",
      "1": "user-input error (unknown command/flag, missing argument, bad preset or setting)",
      "2": "environment/state error (doctor failure, missing backend, unwritable state dir)",
    },
    exit_codes_run: {
      "0": "completed",
      "1": "failed",
      "2": "usage or configuration error",
      "3": "stopped (max_iterations, stalled, max_runtime, cost_budget, rate_limited, transient_error, suspended)",
      "130": "interrupted",
    },
    env: {
      AUTOLOOP_PROJECT_DIR: "work dir of state-reading commands (default: cwd; --work-dir wins)",
      AUTOLOOP_CONFIG: "the user config file (default: $XDG_CONFIG_HOME/autoloop/config.toml)",
      AUTOLOOP_OPERATOR_DIR: "the operator's private state home (runs' launch records, control)",
    },
    output_contract: {
      stdout: "requested data only",
      stderr: "diagnostics, warnings, and errors",
      json_flag:
        "--json on: " +
        COMMANDS.filter((c) => c[2])
          .map((c) => c[0])
          .join(", "),
    },
    backends: {
      supported: AGENT_IDS,
      unsupported: ["pi", "acp", "claude-sdk"],
      note: "a preset's backend.command picks the agent by its file name (or backend.agent names it); any other program runs as the command kind",
    },
    commands: COMMANDS.map(([name, summary, json, mutating]) => ({
      name,
      summary,
      json,
      mutating,
    })),
  };
}

export async function capabilitiesCommand(argv: string[]): Promise<number> {
  const p = parse(argv, { json: { type: "boolean" } }, "autoloop capabilities", 1);
  if (flag(p, "help")) {
    process.stdout.write(HELP);
    return 0;
  }
  process.stdout.write(`${JSON.stringify(capabilities(), null, 2)}\n`);
  return 0;
}
