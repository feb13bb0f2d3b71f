// `npm run screenshots`: the README's screenshots of the status page, taken again by the browser
// tests (test/web/status-page.test.ts, trends.test.ts, run-page.test.ts) so that they show what the
// page does today. Only the images the README shows are copied into docs/images.
import { copyFileSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { execa } from "execa";

const root = new URL("..", import.meta.url).pathname;
const shots = mkdtempSync(join(tmpdir(), "autoloop-screenshots-"));
try {
  await execa("npm", ["run", "build"], { cwd: root, stdio: "inherit" });
  const tests = ["status-page", "trends", "run-page"].map((t) => `test/web/${t}.test.ts`);
  await execa("npx", ["vitest", "run", ...tests], {
    cwd: root,
    stdio: "inherit",
    env: { SCREENSHOTS_DIR: shots },
  });
  const shown = new Set(
    [
      ...readFileSync(join(root, "README.md"), "utf8").matchAll(/docs\/images\/([\w.-]+\.png)/g),
    ].map((m) => m[1]),
  );
  const taken = readdirSync(shots).filter((f) => shown.has(f));
  for (const file of taken) copyFileSync(join(shots, file), join(root, "docs", "images", file));
  const missing = [...shown].filter((f) => !taken.includes(f));
  console.log(`docs/images: ${taken.join(", ")}`);
  if (missing.length > 0) {
    console.error(`the README shows images no test took: ${missing.join(", ")}`);
    process.exitCode = 1;
  }
} finally {
  rmSync(shots, { recursive: true, force: true });
}
