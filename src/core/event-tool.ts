// The event tool handed to the agent: a small executable in the run's state dir that runs
// this harness's CLI bound to the run's files, even when the agent's shell drops the env.
import { chmodSync, mkdirSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";
import { autoloopEntry } from "../util/package-root.js";
import { shellQuote } from "../util/shell-quote.js";

/** Writes `<runDir>/autoloops`; `bound` env values apply only where the caller has none. */
export function writeEventTool(toolPath: string, bound: Record<string, string>): void {
  mkdirSync(dirname(toolPath), { recursive: true });
  // Set only when unset; the value is single-quoted, so any byte of a path is literal.
  const defaults = Object.entries(bound)
    .map(
      ([key, value]) =>
        `if [ -z "\${${key}+x}" ]; then ${key}=${shellQuote(value)}; export ${key}; fi`,
    )
    .join("\n");
  const script = `#!/bin/sh
# autoloop event tool for one run: emit events and manage tasks.
${defaults}
exec ${shellQuote(process.execPath)} ${shellQuote(autoloopEntry())} "$@"
`;
  writeFileSync(toolPath, script, { mode: 0o755 });
  chmodSync(toolPath, 0o755);
}
