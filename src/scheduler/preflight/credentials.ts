// A preset schedule's agents' credentials, checked as each CLI offers (its module in
// harness/agents): which CLIs the preset runs (its backend and its roles' own), and one check.
import { execa } from "execa";
import { type AgentAdapter, agentArgs, resolveAgent } from "../../harness/agents/index.js";
import { withBackend } from "../../harness/preset/backend-overlay.js";
import { loadPreset } from "../../harness/preset/preset.js";
import type { CheckResult } from "./preflight-file.js";

/** A CLI whose answer takes longer than this told nothing. */
export const CHECK_TIMEOUT_MS = 60_000;

export interface AgentToCheck {
  agent: AgentAdapter;
  command: string;
  /** The argv its iterations run with (a check may not apply to them: `skip`). */
  args: string[];
  /** The preset's `backend.env`, over the run's environment. */
  env: Record<string, string>;
}

/**
 * The distinct CLIs a preset's iterations run that have a check, each with its command and
 * args; not those run as another user (`backend.run_as`), whose login the daemon cannot see.
 */
export function agentsOfPreset(presetDir: string, sets: readonly string[]): AgentToCheck[] {
  const preset = loadPreset(presetDir, sets);
  const presets = [
    preset,
    ...preset.topology.roles.flatMap((r) => (r.backend ? [withBackend(preset, r.backend)] : [])),
  ];
  const found = new Map<string, AgentToCheck>();
  for (const p of presets) {
    const backend = p.config.backend;
    const agent = resolveAgent(backend);
    // An agent run as another user has its login there, out of the daemon's sight.
    const unseen = backend.run_as !== undefined || agent.credentialsCheck === undefined;
    if (unseen || found.has(`${agent.id} ${backend.command}`)) continue;
    const args = agentArgs(agent, [...(backend.agent_args[agent.id] ?? []), ...backend.args]);
    const env = { ...backend.env };
    found.set(`${agent.id} ${backend.command}`, { agent, command: backend.command, args, env });
  }
  return [...found.values()];
}

/** Asks the CLI whether its login still works, in `cwd` with `env`. */
export async function checkCredentials(
  a: AgentToCheck,
  cwd: string,
  env: NodeJS.ProcessEnv,
  timeoutMs = CHECK_TIMEOUT_MS,
): Promise<CheckResult> {
  const check = a.agent.credentialsCheck;
  const full = { ...env, ...a.env };
  if (check === undefined) return { kind: "unknown", detail: `${a.agent.name} offers no check` };
  if (check.skip?.(a.args, full))
    return { kind: "unknown", detail: `${a.agent.name}'s check does not see how it logs in here` };
  const r = await execa(a.command, [...check.args], {
    cwd,
    env: full,
    extendEnv: false,
    reject: false,
    stdin: "ignore",
    all: true,
    timeout: timeoutMs,
  });
  const output = String(r.all ?? "");
  const tail = output.trim().split("\n").slice(-5).join("\n").slice(-1000);
  const ran = `${a.command} ${check.args.join(" ")}`;
  if (r.timedOut)
    return { kind: "unknown", detail: `${ran}: no answer within ${timeoutMs / 1000} s` };
  if (r.failed && r.exitCode === undefined)
    return { kind: "unknown", detail: `${ran} could not run: ${r.shortMessage}` };
  if (check.refused(r.exitCode ?? -1, output))
    return { kind: "refused", detail: `${ran} exited ${r.exitCode}: ${tail}` };
  if (r.exitCode === 0) return { kind: "passed" };
  return { kind: "unknown", detail: `${ran} exited ${r.exitCode}: ${tail}` };
}
