// A preset whose agent is a shell script: what hostile and human-in-the-loop tests drive.
import { chmodSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";

export interface ScriptPreset {
  /** The preset folder's name under `dir`. */
  name: string;
  /** The agent's script, run on every iteration without operator guidance. */
  script: string;
  /** Lines added to `[event_loop]` (it has max_iterations = 3 and ask_poll_ms = 50). */
  eventLoop?: string;
  /** Run first when the prompt carries operator guidance, before `task.complete` is emitted. */
  onGuidance?: string;
}

/** Writes the preset; an iteration with the operator's guidance completes the run. */
export function scriptPreset(dir: string, p: ScriptPreset): string {
  const preset = join(dir, p.name);
  mkdirSync(preset);
  const agent = join(preset, "agent.sh");
  writeFileSync(
    agent,
    `#!/bin/sh
if grep -q "OPERATOR GUIDANCE" "$AUTOLOOP_PROMPT_PATH"; then
${p.onGuidance === undefined ? "" : `  ${p.onGuidance}\n`}  exec "$AUTOLOOP_BIN" emit task.complete "done after the operator spoke"
fi
${p.script}
`,
  );
  chmodSync(agent, 0o755);
  writeFileSync(
    join(preset, "autoloops.toml"),
    `[event_loop]\nmax_iterations = 3\nask_poll_ms = 50\n${p.eventLoop ?? ""}\n[backend]\ncommand = ${JSON.stringify(agent)}\nprompt_mode = "file"\n`,
  );
  return preset;
}

/** A preset of one iteration whose agent is `sh -c <command>` (it should echo LOOP_COMPLETE). */
export function oneIterationPreset(presetsDir: string, name: string, command: string): string {
  const preset = join(presetsDir, name);
  mkdirSync(preset, { recursive: true });
  writeFileSync(
    join(preset, "autoloops.toml"),
    `[event_loop]\nmax_iterations = 1\nstall_iterations = 0\n[backend]\ncommand = "sh"\nargs = ["-c", ${JSON.stringify(command)}]\nprompt_mode = "file"\n`,
  );
  return preset;
}
