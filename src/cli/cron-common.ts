// Shared pieces of the autoloop-cron commands: --config, loading it, printing help.
import { refusedChannelProblems } from "../monitor/channels/create.js";
import { silentLogger } from "../monitor/channels/delivery.js";
import { type CronConfig, findConfig } from "../scheduler/config/config.js";
import { UserError } from "../util/errors.js";
import { flag, type Options, type Parsed, parse, str } from "./common.js";

export const CONFIG_OPTION: Options = { config: { type: "string", short: "c" } };

export interface CronCommand {
  name: string;
  help: string;
  options?: Options;
}

/** Parses argv with --config and --help; returns undefined after printing help. */
export function parseCron(argv: string[], command: CronCommand): Parsed | undefined {
  const p = parse(argv, { ...CONFIG_OPTION, ...command.options }, `autoloop-cron ${command.name}`);
  if (flag(p, "help")) {
    process.stdout.write(command.help);
    return undefined;
  }
  return p;
}

export function configOf(p: Parsed): CronConfig {
  return findConfig(str(p, "config"));
}

/** `start` and `monitor` refuse secrets that could never work (a malformed webhook secret). */
export function refuseBrokenSecrets(config: CronConfig): void {
  const refused = refusedChannelProblems(config.channels, {
    stateDir: config.stateDir,
    logger: silentLogger,
  });
  if (refused.length > 0) throw new UserError(refused.join("\n"));
}

export function printJson(value: unknown): void {
  process.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
}
