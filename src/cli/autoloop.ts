#!/usr/bin/env node
// `autoloop`: the core harness CLI. Subcommands are loaded lazily so a run starts fast.
import "./debug-signal.js"; // first: see there
import { runMain } from "./common.js";

const HELP = `autoloop: run multi-role, event-driven agent loops from presets

Usage:
  autoloop run <preset-name|preset-dir> [objective...] [options]   run a loop
  autoloop list [--json]                                            the presets a run can use here
  autoloop init --preset NAME [dir] [--as NEW]                      copy a preset to dir/presets/ to change it
  autoloop emit <topic> [payload...]                                publish an event (inside a loop)
  autoloop task add|complete|update|remove|list ...                 per-run tasks
  autoloop inspect journal|tasks|runs|usage [--run ID] [--json]     look at a work dir's state
  autoloop stats [--json]                                           per preset: outcomes, iterations, cost
  autoloop memory list|status|find|add|remove|promote ...           loop memory (project and run)
  autoloop agents [--json|--markdown]                               the agent CLIs and their argv
  autoloop worktree list|show|diff|merge|clean ...                  runs' git worktrees
  autoloop chain list|run <name> [objective...]                     presets run in sequence (chains.toml)
  autoloop runs list|replay <run-id>                                inside a scheduled run: its schedule's runs
  autoloop runs clean [--max-age 7d]                                remove ended runs' .autoloop/runs/<id>/ folders
  autoloop control show|capabilities|respond|guide|interrupt <run-id> a live run: answer, guide, interrupt
  autoloop resume <run-id> [--add-iterations N]                     go on with a run that stopped
  autoloop hooks list|show|validate|clear-suspend ...               a preset's lifecycle hooks

The public autoloop's operator verbs (exit 0 success, 1 usage mistake, 2 environment):
  autoloop loops [--all]|show|artifacts|watch|health [--json]       a work dir's runs, from its registry
  autoloop doctor [--preset P] [--json]                             node, git, agent CLIs, state dirs
  autoloop triage [--json]                                          runs, health, doctor, stats, next commands
  autoloop config show|set|unset|path ...                           the user config and preset overrides
  autoloop verify [run-id] [--json]                                 re-run a completed run's acceptance checks
  autoloop preset promote <source.toml> <name>                      install a single-file preset as yours
  autoloop capabilities                                             this CLI's contract, as JSON

Run \`autoloop <command> --help\` for a command's options.

Exit codes of \`autoloop run\`: 0 completed, 1 failed, 3 stopped (max_iterations, stalled,
max_runtime, cost_budget, rate_limited, transient_error, suspended), 130 interrupted, 2 usage or configuration error.
`;

async function main(): Promise<number> {
  const [command, ...rest] = process.argv.slice(2);
  switch (command) {
    case "run":
      return (await import("./autoloop-run.js")).runCommand(rest);
    case "list":
      return (await import("./autoloop-presets.js")).listCommand(rest);
    case "init":
      return (await import("./autoloop-presets.js")).initCommand(rest);
    case "emit":
      return (await import("./autoloop-emit.js")).emitCommand(rest);
    case "task":
      return (await import("./autoloop-task.js")).taskCommand(rest);
    case "inspect":
      return (await import("./autoloop-inspect.js")).inspectCommand(rest);
    case "stats":
      return (await import("./autoloop-stats.js")).statsCommand(rest);
    case "memory":
      return (await import("./autoloop-memory.js")).memoryCommand(rest);
    case "agents":
      return (await import("./autoloop-agents.js")).agentsCommand(rest);
    case "worktree":
      return (await import("./autoloop-worktree.js")).worktreeCommand(rest);
    case "chain":
      return (await import("./autoloop-chain.js")).chainCommand(rest);
    case "runs":
      return (await import("./autoloop-runs.js")).runsCommand(rest);
    case "resume":
      return (await import("./autoloop-resume.js")).resumeCommand(rest);
    case "hooks":
      return (await import("./autoloop-hooks.js")).hooksCommand(rest);
    case "loops":
      return (await import("./autoloop-loops.js")).loopsCommand(rest);
    case "doctor":
      return (await import("./autoloop-doctor.js")).doctorCommand(rest);
    case "config":
      return (await import("./autoloop-config.js")).configCommand(rest);
    case "triage":
      return (await import("./autoloop-triage.js")).triageCommand(rest);
    case "preset":
      return (await import("./autoloop-preset.js")).presetCommand(rest);
    case "verify":
      return (await import("./autoloop-verify.js")).verifyCommand(rest);
    case "capabilities":
      return (await import("./autoloop-capabilities.js")).capabilitiesCommand(rest);
    case "control":
      return (await import("./autoloop-control.js")).controlCommand(rest);
    case undefined:
    case "help":
    case "--help":
    case "-h":
      process.stdout.write(HELP);
      return command === undefined ? 2 : 0;
    case "--version":
    case "-V":
      process.stdout.write(`${(await import("./version.js")).packageVersion()}\n`);
      return 0;
    default:
      process.stderr.write(`autoloop: unknown command ${JSON.stringify(command)}\n\n${HELP}`);
      return 2;
  }
}

// Not awaited at the top level: the CLI is bundled as CommonJS (scripts/bundle.mjs).
void runMain(main, "autoloop");
