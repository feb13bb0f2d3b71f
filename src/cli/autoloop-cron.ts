#!/usr/bin/env node
// `autoloop-cron`: the scheduler daemon and its operator commands. Subcommands load lazily.
import "./debug-signal.js"; // first: see there
import { runMain } from "./common.js";

const HELP = `autoloop-cron: run agent loops on a schedule; alert a human only when a run needs one

Usage:
  autoloop-cron start                        run the daemon (scheduler + monitor)
  autoloop-cron validate [--json]            check the config and every schedule file
  autoloop-cron list [--json]                schedules, next fire times, pause state
  autoloop-cron fire <schedule> [--foreground]
                                             launch a run now
  autoloop-cron runs [--schedule S] [--json] recent runs from the run ledger
  autoloop-cron runs show <run-id> [--json]  one run's history
  autoloop-cron output <run-id> [--follow]   a run's captured output
  autoloop-cron stop <run-id> [reason...]    stop a running run
  autoloop-cron answer <run-id> "<answer>"   answer the question a run waits on
  autoloop-cron guide <run-id> "<guidance>"  guidance for a live run's next iteration
  autoloop-cron interrupt <run-id>           stop the agent's current turn; the run goes on
  autoloop-cron task <run-id> complete|remove <task-id>
                                             close a live run's task (a gate only a human can pass)
  autoloop-cron pause [schedule]             pause one schedule, or all of them
  autoloop-cron resume [schedule]            resume one schedule, or all of them
  autoloop-cron monitor [--journal PATH]... [--once]
                                             run only the monitor
  autoloop-cron status [--json]              what needs a human: stuck, failed, stalled runs
  autoloop-cron digest [--since 24h] [--json]
                                             what the runs did: outcomes, cost, questions, spend
  autoloop-cron incident list|show|log|ack|resolve ...
  autoloop-cron alert test|ack|silence ...
  autoloop-cron export kubernetes|systemd    CronJobs or .service/.timer units per schedule
  autoloop-cron health                       liveness probe for containers (exit 0 or 1)
  autoloop-cron mcp                          MCP server on stdio (Claude Code, any MCP client)

Every command takes --config FILE (else $AUTOLOOP_CRON_CONFIG, else ./autoloop-cron.toml)
and --help.
`;

type Command = (argv: string[]) => Promise<number>;

const COMMANDS: Record<string, () => Promise<Command>> = {
  start: async () => (await import("./cron-start.js")).startCommand,
  validate: async () => (await import("./cron-schedules.js")).validateCommand,
  list: async () => (await import("./cron-schedules.js")).listCommand,
  fire: async () => (await import("./cron-fire.js")).fireCommand,
  runs: async () => (await import("./cron-runs.js")).runsCommand,
  output: async () => (await import("./cron-runs.js")).outputCommand,
  stop: async () => (await import("./cron-runs.js")).stopCommand,
  answer: async () => (await import("./cron-answer.js")).answerCommand,
  guide: async () => (await import("./cron-answer.js")).guideCommand,
  interrupt: async () => (await import("./cron-answer.js")).interruptCommand,
  task: async () => (await import("./cron-answer.js")).taskCommand,
  pause: async () => (await import("./cron-pause.js")).pauseCommand,
  resume: async () => (await import("./cron-pause.js")).resumeCommand,
  monitor: async () => (await import("./cron-monitor.js")).monitorCommand,
  status: async () => (await import("./cron-status.js")).statusCommand,
  digest: async () => (await import("./cron-digest.js")).digestCommand,
  incident: async () => (await import("./cron-incident.js")).incidentCommand,
  alert: async () => (await import("./cron-alert.js")).alertCommand,
  export: async () => (await import("./cron-export.js")).exportCommand,
  health: async () => (await import("./cron-health.js")).healthCommand,
  mcp: async () => (await import("./cron-mcp.js")).mcpCommand,
  // Not in the help: the daemon starts it (src/launch/spawn-helper.ts).
  "spawn-helper": async () => (await import("./cron-spawn-helper.js")).spawnHelperCommand,
};

async function main(): Promise<number> {
  const [command, ...rest] = process.argv.slice(2);
  if (command === undefined || command === "help" || command === "--help" || command === "-h") {
    process.stdout.write(HELP);
    return command === undefined ? 2 : 0;
  }
  if (command === "--version" || command === "-V") {
    process.stdout.write(`${(await import("./version.js")).packageVersion()}\n`);
    return 0;
  }
  const load = COMMANDS[command];
  if (load === undefined) {
    process.stderr.write(`autoloop-cron: unknown command ${JSON.stringify(command)}\n\n${HELP}`);
    return 2;
  }
  return (await load())(rest);
}

await runMain(main, "autoloop-cron");
