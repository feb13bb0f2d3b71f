// Codex (the npm package), logged in against the scripted OpenAI Responses API.
import { existsSync } from "node:fs";
import { join } from "node:path";
import { expect, it } from "vitest";
import { AUTOFIX_PLAN, presetAgent } from "../helpers/preset-agent.js";
import { describeLoggedIn, gitProject, runLoggedIn } from "./suite.js";

describeLoggedIn("codex");

it("lets autofix's test suites open loopback ports inside codex's sandbox", async () => {
  const project = gitProject();
  // A test suite that starts a server on 127.0.0.1, as many do.
  const listen = `node -e "require('http').createServer().listen(0, '127.0.0.1', function () { require('fs').writeFileSync('listened', 'yes'); this.close(); })"`;
  const run = await runLoggedIn(
    "codex",
    presetAgent({ ...AUTOFIX_PLAN, fixer: [{ shell: listen }, ...AUTOFIX_PLAN.fixer!] }),
    ["autofix", "Fix it"],
    { cwd: project },
  );
  expect(run.exitCode, run.stderr).toBe(0);
  expect(existsSync(join(project, "listened"))).toBe(true);
}, 120_000);
