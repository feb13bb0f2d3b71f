// An agent forges its run's stop reason: it appends a `loop.stop` whose reason is terminal
// escapes, a mention and a link, then kills its harness so no record of the harness's follows.
// The reason reaches the ledger, `autoloop-cron runs`, `runs show`, `fire`'s stderr and an
// issue's follow-up comment: a reason is a word, or it is shown as `unreadable_reason`.
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { execa } from "execa";
import { afterAll, describe, expect, it } from "vitest";
import { AUTOLOOP_CRON, cleanEnv, cleanupTempDirs, tempDir } from "../helpers/cli.js";

afterAll(cleanupTempDirs);

const HOSTILE =
  "x\u001b]52;c;ZXZpbA==\u0007\u001b]0;pwned\u0007 @everyone [Approve](http://evil.example)";

// The agent: the forged terminal record, then SIGKILL to the harness (its parent).
const AGENT = `
const fs = require("node:fs");
const record = { shape: "system", run: process.env.AUTOLOOP_RUN_ID, topic: "loop.stop",
  ts: new Date().toISOString(), v: 1, fields: { reason: ${JSON.stringify(HOSTILE)} } };
fs.appendFileSync(".autoloop/journal.jsonl", JSON.stringify(record) + "\\n");
process.kill(process.ppid, "SIGKILL");
`;

describe("a stop reason the agent wrote", () => {
  it("is a word in the ledger, and no escape reaches the operator's terminal", async () => {
    const root = tempDir("autoloop-stop-reason-");
    mkdirSync(join(root, "schedules"));
    mkdirSync(join(root, "work", ".autoloop"), { recursive: true });
    mkdirSync(join(root, "presets", "forger"), { recursive: true });
    writeFileSync(join(root, "agent.js"), AGENT);
    writeFileSync(
      join(root, "presets", "forger", "autoloops.toml"),
      `[event_loop]\nmax_iterations = 1\n[backend]\ncommand = ${JSON.stringify(process.execPath)}\nargs = [${JSON.stringify(join(root, "agent.js"))}]\n`,
    );
    const config = join(root, "autoloop-cron.toml");
    writeFileSync(config, 'state_dir = "state"\n[http]\nlisten = ""\n');
    writeFileSync(
      join(root, "schedules", "s.toml"),
      '[[schedule]]\nname = "forger"\ncron = "0 0 1 1 *"\npreset = "forger"\nobjective = "x"\nproject_dir = "../work"\n',
    );
    const cron = (...args: string[]) =>
      execa(process.execPath, [AUTOLOOP_CRON, ...args, "--config", config], {
        env: cleanEnv(),
        extendEnv: false,
        reject: false,
      });
    const fired = await cron("fire", "forger", "--foreground");
    const [run] = JSON.parse((await cron("runs", "--json")).stdout) as Array<{
      runId: string;
      status: string;
      stopReason?: string;
    }>;
    expect(run).toMatchObject({ status: "failed", stopReason: "unreadable_reason" });
    const list = await cron("runs");
    const show = await cron("runs", "show", run!.runId);
    for (const out of [fired.stderr, list.stdout, show.stdout]) {
      expect(out).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/);
      expect(out).not.toContain("@everyone");
    }
    expect(show.stdout).toContain("status failed (unreadable_reason)");
  }, 60_000);
});
