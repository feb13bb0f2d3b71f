// Drives the configuration `npm start` uses, end to end: the daemon fires the demo
// schedules, demo-stuck's run asks a human for its sign-off and the page lands in the embedded
// sink; answered from the CLI, the run completes and the page is resolved, saying who answered.
import { cpSync, existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { execa } from "execa";
import { afterEach, describe, expect, it } from "vitest";
import { AUTOLOOP_CRON, cleanEnv, cleanupTempDirs, ROOT, tempDir } from "../helpers/cli.js";
import { waitFor } from "../helpers/wait.js";

afterEach(cleanupTempDirs);

describe("the bundled demo (npm start)", () => {
  it("pages demo-stuck's question, takes the answer from the CLI, and resolves the page", async () => {
    const dir = tempDir();
    cpSync(join(ROOT, "autoloop-cron.toml"), join(dir, "autoloop-cron.toml"));
    cpSync(join(ROOT, "schedules"), join(dir, "schedules"), { recursive: true });
    // The demo as a fresh clone has it: not the runs an earlier `npm start` left in it.
    cpSync(join(ROOT, "demo"), join(dir, "demo"), {
      recursive: true,
      filter: (source) => !source.split(/[\\/]/).includes(".autoloop"),
    });
    // Same config, a faster clock: every 5 seconds instead of every minute, no port.
    const schedules = join(dir, "schedules", "demo.toml");
    writeFileSync(
      schedules,
      readFileSync(schedules, "utf8").replaceAll('cron = "* * * * *"', 'cron = "*/5 * * * * *"'),
    );
    const config = join(dir, "autoloop-cron.toml");
    writeFileSync(config, `${readFileSync(config, "utf8")}\n[http]\nlisten = ""\n`);

    const daemon = execa(process.execPath, [AUTOLOOP_CRON, "start", "--config", config], {
      env: cleanEnv(),
      reject: false,
    });
    const cron = (...args: string[]) =>
      execa(process.execPath, [AUTOLOOP_CRON, ...args, "--config", config], {
        env: cleanEnv(),
        reject: false,
      });
    try {
      const mail = join(dir, ".autoloop-cron", "mail");
      const sent = (pattern: RegExp) =>
        existsSync(mail) ? readdirSync(mail).filter((f) => pattern.test(f)) : [];
      // The README's tour cats the .txt beside each .eml: the mail as on-call reads it.
      const [eml] = await waitFor(
        () => {
          const found = sent(/question_pending.*\.eml$/);
          return found.length > 0 ? found : undefined;
        },
        "demo-stuck's question in the sink",
        60_000,
        200,
      );
      const text = readFileSync(join(mail, eml!.replace(/\.eml$/, ".txt")), "utf8");
      expect(text).toMatch(/Subject: \[FIRING\] run asks a human: demo-stuck/);
      expect(text).toContain("May I ship the release? Answer yes to sign off.");
      const runId = /autoloop-cron answer (demo-stuck-\S+)/.exec(text)?.[1];
      expect(runId, text).toBeDefined();
      const status = await cron("status");
      expect(status.exitCode).toBe(1);
      expect(status.stdout).toContain(`run ${runId} waits for a human's answer`);

      const wrong = await cron("answer", "demo-report-20990101T0000-aaaaa", "yes");
      expect(wrong.exitCode).toBe(1);
      const answered = await cron("answer", runId!, "yes, ship it");
      expect(answered.exitCode, answered.stderr).toBe(0);
      expect(answered.stdout).toContain(`answered ask_${runId}_2`);
      // The run completes, and the page is resolved once, saying who answered.
      await waitFor(
        async () => (await cron("runs", "show", runId!)).stdout.includes("completed"),
        "the answered run to complete",
        30_000,
        200,
      );
      const resolved = await waitFor(
        () =>
          sent(/question_pending.*\.txt$/)
            .map((f) => readFileSync(join(mail, f), "utf8"))
            .find((t) => t.includes("[RESOLVED]")),
        "the resolved notice",
        30_000,
        200,
      );
      expect(resolved).toMatch(
        /answered by cli:\S+: \\"yes, ship it\\"|answered by cli:\S+: "yes, ship it"/,
      );
    } finally {
      daemon.kill("SIGTERM");
    }
    const ended = await daemon;
    expect(ended.exitCode).toBe(0);
    expect(ended.stdout).toContain('"msg":"fired"');
    expect(ended.stdout).toContain('"msg":"autoloop-cron stopped"');
  });
});
