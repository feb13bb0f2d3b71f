// The event tool handed to the agent: a small executable in the run's state dir that runs
// this harness's CLI bound to the run's files, even when the agent's shell drops the env.
import { chmodSync, lstatSync, mkdirSync, rmSync, writeFileSync } from "node:fs";
import { basename, dirname } from "node:path";
import { autoloopEntry } from "../../util/package-root.js";
import { shellQuote } from "../../util/shell-quote.js";

/** Writes `<runDir>/autoloops`; `bound` env values apply only where the caller has none. */
export function writeEventTool(toolPath: string, bound: Record<string, string>): void {
  const shared = dirname(dirname(toolPath));
  if (basename(shared).startsWith("autoloop-tools-")) ensurePrivateDir(shared);
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

/** The temp folder of event tools: made 0700, and refused when someone else owns it or it is a link. */
function ensurePrivateDir(dir: string): void {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const st = lstatSync(dir);
  if (!st.isDirectory() || (process.getuid !== undefined && st.uid !== process.getuid()))
    throw new Error(
      `${dir} is not a folder of this user's: the event tool cannot go there (remove it, or set TMPDIR to a private folder)`,
    );
  if ((st.mode & 0o077) !== 0) chmodSync(dir, 0o700);
}

/** An event tool kept outside the run's folder (a work dir with a space) goes with the run. */
export function removeEventTool(paths: { toolPath: string; runDir: string }): void {
  if (dirname(paths.toolPath) !== paths.runDir)
    rmSync(dirname(paths.toolPath), { recursive: true, force: true });
}
