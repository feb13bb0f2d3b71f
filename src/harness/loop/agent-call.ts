// One agent call and what it came to: the CLI run with its event stream read as it comes
// (each step a readable line for the live log), the answer the judge reads, the usage, and
// the words that say why it failed.
import { dirname } from "node:path";
import { type AgentInvocation, type AgentResult, runAgent } from "../agents/backend.js";
import {
  type AgentAdapter,
  agentArgs,
  modelArgs,
  promptModeFor,
  resolveAgent,
} from "../agents/index.js";
import type { AgentStream, StreamReport } from "../agents/stream.js";
import type { AgentUsage } from "../agents/usage.js";
import type { Preset } from "../preset/preset.js";
import type { RunPaths } from "../run-paths.js";
import { tail } from "./judge.js";
import { substitute } from "./prompt.js";
import { clearedUsageFile, readUsageFile } from "./usage-file.js";

export interface AgentCall {
  result: AgentResult;
  /** What the event stream said; undefined for a CLI run without one (a plain command). */
  said: StreamReport | undefined;
  /** The text the judge reads and the journal keeps: the answer, or all a plain command printed. */
  output: string;
  /** The words a failure is classified by (never the prompt a CLI echoed). */
  failureTail: string;
  /** Exited 0 after an error it could not get past, with no answer: a failure all the same. */
  streamFailed: boolean;
  /** The journal's `exit_code`: the code, 127 when it did not start, -1 when it was stopped. */
  exitCode: string;
  usage: AgentUsage | undefined;
}

/** The agent, its command and argv for every call of a run, and where its prompt goes. */
export function agentCommand(
  preset: Preset,
  paths: RunPaths,
  runId: string,
): { agent: AgentAdapter; command: string; args: string[]; promptMode: "arg" | "stdin" | "file" } {
  const backend = preset.config.backend;
  const agent = resolveAgent(backend);
  const presetArgs = [...(backend.agent_args[agent.id] ?? []), ...backend.args];
  const args = [
    ...agentArgs(agent, presetArgs).map((a) => substitute(a, paths, runId, preset.dir)),
    ...modelArgs(agent, backend.model, presetArgs),
    // Codex's sandbox writes only inside its workspace, which a preset may move (`--cd`).
    ...(agent.writableDir?.(dirname(paths.journalFile)) ?? []),
  ];
  return {
    agent,
    command: substitute(backend.command, paths, runId, preset.dir),
    args,
    promptMode: promptModeFor(agent, backend.prompt_mode),
  };
}

export async function callAgent(input: {
  agent: AgentAdapter;
  invocation: Omit<AgentInvocation, "onStdoutLine" | "onStderrLine">;
  paths: RunPaths;
  progress: (line: string) => void;
}): Promise<AgentCall> {
  const { agent, invocation, paths, progress } = input;
  const env = { ...invocation.env };
  const stream: AgentStream | undefined = agent.stream?.selected(invocation.args)
    ? agent.stream.open(invocation.args, env)
    : undefined;
  if (agent.usageByFile) env.AUTOLOOP_USAGE_FILE = clearedUsageFile(paths);
  const result = await runAgent({
    ...invocation,
    env,
    ...(stream && {
      onStdoutLine: (line: string) => {
        const shown = stream.line(line);
        if (shown !== undefined) for (const l of shown.split("\n")) progress(`  ${agent.id}: ${l}`);
      },
      // Its warnings too (a policy file it could not read, a deprecated flag).
      onStderrLine: (line: string) => {
        if (line.trim() !== "") progress(`  ${agent.id} (stderr): ${line}`);
      },
    }),
  });
  const said = stream?.report();
  const usage = said?.usage ?? (agent.usageByFile ? readUsageFile(paths) : undefined);
  const raw = result.kind === "spawn_failed" ? `${result.output}${result.error}` : result.output;
  // With an event stream: its final answer, else the error it reported, else its stderr.
  const output =
    said === undefined || result.kind === "spawn_failed"
      ? raw
      : (said.answer ?? said.error?.message ?? result.stderr);
  const failureTail =
    said === undefined
      ? tail(raw, 500)
      : tail(`${said.error?.message ?? said.answer ?? ""}\n${result.stderr}`.trim(), 500);
  const streamFailed =
    result.kind === "exited" &&
    result.exitCode === 0 &&
    said?.error !== undefined &&
    said.answer === undefined;
  const exitCode =
    result.kind === "exited"
      ? String(result.exitCode)
      : result.kind === "spawn_failed"
        ? "127"
        : "-1";
  return { result, said, output, failureTail, streamFailed, usage, exitCode };
}
