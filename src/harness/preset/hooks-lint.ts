// What a preset's hooks can get wrong, found before a run does (`autoloop hooks validate`,
// `autoloop-cron validate`): a failure policy its phase cannot honour, a mutation its phase
// never takes, and a hook that runs a file of the work dir, which the run's agent can rewrite
// before the hook runs it as the operator.
import { isAbsolute } from "node:path";
import { idleMutation } from "./hook-mutation.js";
import { type HookConfig, type HookSpec, hookArgv, hookSpecs } from "./hooks.js";
import type { TopologyFinding } from "./topology-lint.js";

const SHELLS = new Set(["sh", "bash", "dash", "zsh", "/bin/sh", "/bin/bash", "/usr/bin/env"]);

/** The program a hook runs when it is a file named relative to the work dir. */
export function workDirProgram(spec: HookSpec): string | undefined {
  const argv =
    typeof spec.command === "string" ? spec.command.trim().split(/\s+/) : hookArgv(spec.command);
  // {{PRESET_DIR}} is the preset's folder; {{STATE_DIR}} the run's, which its agent writes.
  const relative = (word: string | undefined) =>
    word?.includes("/") &&
    !isAbsolute(word) &&
    !word.startsWith("~") &&
    !word.startsWith("{{PRESET_DIR}}/")
      ? word
      : undefined;
  const first = relative(argv[0]);
  if (first !== undefined) return first;
  // `sh scripts/sync.sh`: the shell runs the project's file.
  if (SHELLS.has(argv[0] ?? "") && argv[1] !== undefined && !argv[1].startsWith("-"))
    return relative(argv[1]);
  return undefined;
}

function specFinding(spec: HookSpec): TopologyFinding[] {
  const out: TopologyFinding[] = [];
  const at = spec.source === "legacy" ? `hooks.${spec.phase}` : spec.source;
  if (spec.phase === "post_run" && spec.onError !== "warn")
    out.push({
      severity: "warning",
      field: `${at}.on_error`,
      found: JSON.stringify(spec.onError),
      expected: `"warn": post_run runs after the run has ended, so its failure can neither block nor suspend it`,
    });
  const idle = idleMutation(spec.phase, spec.mutate);
  if (idle !== undefined)
    out.push({
      severity: "warning",
      field: `${at}.mutate`,
      found: JSON.stringify(spec.mutate),
      expected: `"none": ${idle}`,
    });
  const program = workDirProgram(spec);
  if (program !== undefined)
    out.push({
      severity: "warning",
      field: `${at}.command`,
      found: `${JSON.stringify(program)}, a file of the work dir`,
      expected: `a program on PATH or an absolute path outside the project: the hook runs as you, and the run's agent can rewrite the work dir's files first`,
    });
  return out;
}

export function hookFindings(config: HookConfig): TopologyFinding[] {
  const out = hookSpecs(config).flatMap(specFinding);
  const legacy = config.hooks;
  if (legacy?.strict !== undefined && legacy.strict !== false && legacy.pre_run === undefined)
    out.push({
      severity: "warning",
      field: "hooks.strict",
      found: JSON.stringify(legacy.strict),
      expected: `a [hooks] pre_run to go with it: strict only makes a failing pre_run stop the run`,
    });
  return out;
}
