// Makes the compiled CLI entry points executable after `tsc` (tsc does not keep modes).
import { chmodSync, existsSync } from "node:fs";

for (const bin of ["dist/cli/autoloop.js", "dist/cli/autoloop-cron.js"]) {
  if (existsSync(bin)) chmodSync(bin, 0o755);
}
