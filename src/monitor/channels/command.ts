// The command channel: runs a program (argv, never a shell) with the alert JSON on stdin.
// Exit 0 is delivered, sysexits 64-78 (usage/config errors) are permanent, the rest retry.
import { execa } from "execa";
import type { CommandChannelConfig } from "../../scheduler/config/channels.js";
import { standardPayload } from "../alerts/render-webhook.js";
import { type AlertChannel, brokenChannel, type DeliveryResult } from "./delivery.js";

/** The slice of a finished process the channel looks at. */
export interface CommandResult {
  exitCode?: number | undefined;
  timedOut: boolean;
  /** Spawn error code such as ENOENT, when the program did not start. */
  code?: string | undefined;
  signal?: string | undefined;
  /** stdout and stderr interleaved. */
  output: string;
}

export type CommandRunner = (
  argv: readonly string[],
  options: { input: string; timeoutMs: number },
) => Promise<CommandResult>;

export const runWithExeca: CommandRunner = async (argv, { input, timeoutMs }) => {
  const r = await execa(argv[0]!, argv.slice(1), {
    input,
    timeout: timeoutMs,
    reject: false,
    all: true,
    forceKillAfterDelay: 2_000,
  });
  return {
    exitCode: r.exitCode,
    timedOut: r.timedOut,
    code: r.code,
    signal: r.signal,
    output: typeof r.all === "string" ? r.all : "",
  };
};

const EX_USAGE = 64;
const EX_CONFIG = 78;
const SPAWN_CONFIG_ERRORS = new Set(["ENOENT", "EACCES", "ENOTDIR", "EISDIR"]);

/** Sorts a finished command into done, retry or give up; `tail` ends every answer. */
export function classifyCommand(r: CommandResult, timeoutMs: number): DeliveryResult {
  const tail = r.output.slice(-500).trim();
  const withTail = (text: string) => (tail === "" ? text : `${text}: ${tail}`);
  if (r.timedOut) return { kind: "retry", error: withTail(`timed out after ${timeoutMs} ms`) };
  if (r.exitCode === undefined) {
    const what = withTail(`did not run (${r.code ?? r.signal ?? "unknown error"})`);
    return r.code && SPAWN_CONFIG_ERRORS.has(r.code)
      ? { kind: "permanent", error: what }
      : { kind: "retry", error: what };
  }
  if (r.exitCode === 0) return { kind: "delivered", response: withTail("exit 0") };
  const text = withTail(`exit ${r.exitCode}`);
  return r.exitCode >= EX_USAGE && r.exitCode <= EX_CONFIG
    ? { kind: "permanent", error: text }
    : { kind: "retry", error: text };
}

export interface CommandChannelDeps {
  now?: () => number;
  run?: CommandRunner;
  timeoutMs?: number;
}

export function createCommandChannel(
  config: CommandChannelConfig,
  deps: CommandChannelDeps = {},
): AlertChannel {
  if (config.command.length === 0 || config.command[0] === "") {
    return brokenChannel(config.name, "command", `channel "${config.name}": command is empty`);
  }
  const run = deps.run ?? runWithExeca;
  const now = deps.now ?? Date.now;
  const timeoutMs = deps.timeoutMs ?? 30_000;
  return {
    name: config.name,
    type: "command",
    async send(delivery) {
      const payload = standardPayload(delivery.message, delivery.messageId, { now: now() });
      const input = `${JSON.stringify(payload)}\n`;
      return classifyCommand(await run(config.command, { input, timeoutMs }), timeoutMs);
    },
    async close() {},
  };
}
