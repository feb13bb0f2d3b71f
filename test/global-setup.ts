// Tests run the compiled CLIs as real processes; make sure they exist.
import { existsSync } from "node:fs";
import { join } from "node:path";

export default function setup(): void {
  const entry = join(import.meta.dirname, "..", "dist", "bin", "autoloop.cjs");
  if (!existsSync(entry))
    throw new Error(`${entry} is missing: run \`npm run build\` (npm test does it for you)`);
}
