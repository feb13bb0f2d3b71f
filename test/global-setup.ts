// Tests run the compiled CLIs as real processes; make sure they exist. Every harness and
// operator tool the tests start shares one private state home (runs' launch records, questions
// and control requests) in a temp dir, never the user's own `~/.local/state/autoloop`.
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

export default function setup(): () => void {
  const entry = join(import.meta.dirname, "..", "dist", "bin", "autoloop.cjs");
  if (!existsSync(entry))
    throw new Error(`${entry} is missing: run \`npm run build\` (npm test does it for you)`);
  const stateHome = mkdtempSync(join(tmpdir(), "autoloop-state-home-"));
  process.env.XDG_STATE_HOME = stateHome;
  return () => rmSync(stateHome, { recursive: true, force: true });
}
