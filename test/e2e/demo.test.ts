// Drives the configuration `npm start` uses, end to end: the daemon fires the demo
// schedules, the stuck run is refused at its gate, and the alert lands in the embedded sink.
import { cpSync, existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { execa } from "execa";
import { afterEach, describe, expect, it } from "vitest";
import { AUTOLOOP_CRON, cleanEnv, cleanupTempDirs, ROOT, tempDir } from "../helpers/cli.js";
import { waitFor } from "../helpers/wait.js";

afterEach(cleanupTempDirs);

describe("the bundled demo (npm start)", () => {
  it("fires cron runs and delivers a stuck-gate alert to the embedded sink", async () => {
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
    try {
      const mail = join(dir, ".autoloop-cron", "mail");
      // The README's tour cats the .txt beside each .eml: the mail as on-call reads it.
      const eml = await waitFor(
        () => existsSync(mail) && readdirSync(mail).find((f) => /gate_stuck.*\.eml$/.test(f)),
        "a gate_stuck alert in the sink",
        60_000,
        200,
      );
      const text = readFileSync(join(mail, eml.replace(/\.eml$/, ".txt")), "utf8");
      expect(text).toMatch(/Subject: \[FIRING\] gate stuck: demo-stuck/);
      expect(text).toContain("get sign-off from a human who never answers");
      const status = await execa(process.execPath, [AUTOLOOP_CRON, "status", "--config", config], {
        env: cleanEnv(),
        reject: false,
      });
      expect(status.exitCode).toBe(1);
      expect(status.stdout).toContain("demo-stuck: runs stop at the completion gate");
      expect(status.stdout).toContain("[gate_stuck:schedule/demo-stuck]");
    } finally {
      daemon.kill("SIGTERM");
    }
    const ended = await daemon;
    expect(ended.exitCode).toBe(0);
    expect(ended.stdout).toContain('"msg":"fired"');
    expect(ended.stdout).toContain('"msg":"autoloop-cron stopped"');
  });
});
