// The agent CLIs the harness knows, one module each (its invocation, stream, failures, prices,
// what the preset checks need): used by the loop, `autoloop agents` and the README's agent
// table (a test checks the README against it). A new CLI is a module and a line here.
import { basename } from "node:path";
import type { AgentAdapter as Adapter } from "./adapter.js";
import { claude } from "./claude.js";
import { codex } from "./codex.js";
import { command } from "./command.js";
import { gemini } from "./gemini.js";

/** The registry, in the order tables list them; `command` (any other CLI) last. */
export const AGENTS = { claude, codex, gemini, command };

export type AgentId = keyof typeof AGENTS;
export type AgentAdapter = Adapter<AgentId>;
export type { DefaultOption, FailurePattern } from "./adapter.js";
export type { AgentFailureReason } from "./stream.js";

export const AGENT_IDS = Object.keys(AGENTS) as AgentId[];

/** A backend kind naming one of the CLIs the harness knows (`claude`, `codex`, `gemini`). */
export const isCliAgent = (kind: unknown): kind is Exclude<AgentId, "command"> =>
  typeof kind === "string" && kind !== "command" && Object.hasOwn(AGENTS, kind);

/** The adapter for a backend: `backend.agent` when given, else the command's file name. */
export function resolveAgent(backend: {
  agent?: AgentId | undefined;
  command: string;
}): AgentAdapter {
  if (backend.agent !== undefined) return AGENTS[backend.agent];
  const name = basename(backend.command).replace(/\.(exe|cmd|js|mjs)$/i, "");
  return Object.hasOwn(AGENTS, name) ? AGENTS[name as AgentId] : AGENTS.command;
}

function flagOf(token: string): string | undefined {
  if (!token.startsWith("-") || token === "-" || token === "--") return undefined;
  const eq = token.indexOf("=");
  return eq > 0 ? token.slice(0, eq) : token;
}

/** Preset args with the mode token dropped and retired flags replaced by what replaced them. */
function normalisedPresetArgs(agent: AgentAdapter, presetArgs: readonly string[]): string[] {
  const args = [...presetArgs];
  if (args.length > 0 && agent.modeAliases.includes(args[0]!)) args.shift();
  const last = args.at(-1);
  if (last !== undefined && agent.danglingPromptFlags?.includes(last)) args.pop();
  return args.flatMap((a) => agent.replaced?.[a] ?? [a]);
}

/**
 * The argv for one agent call (prompt excluded): mode, the adapter's unattended defaults that
 * the preset does not override, then the preset's own args.
 */
export function agentArgs(agent: AgentAdapter, presetArgs: readonly string[]): string[] {
  const own = normalisedPresetArgs(agent, presetArgs);
  const given = new Set(own.map(flagOf).filter((f): f is string => f !== undefined));
  const defaults = agent.defaults
    .filter((d) => !d.unless.some((flag) => given.has(flag)))
    .flatMap((d) => d.args);
  return [...agent.mode, ...defaults, ...own];
}

/** The CLI's model flag for `model`, unless the preset's args already choose one. */
export function modelArgs(
  agent: AgentAdapter,
  model: string | undefined,
  presetArgs: readonly string[],
): string[] {
  const flags = agent.modelFlags;
  if (model === undefined || flags === undefined) return [];
  const chosen = presetArgs.some((a) => flags.includes(flagOf(a) ?? ""));
  return chosen ? [] : [flags[0]!, model];
}

/** Where the prompt goes: the preset's choice, else the adapter's. */
export function promptModeFor(
  agent: AgentAdapter,
  configured: "arg" | "stdin" | "file" | undefined,
): "arg" | "stdin" | "file" {
  return configured ?? agent.promptMode;
}
