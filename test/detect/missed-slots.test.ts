// Without a daemon (Kubernetes CronJobs, systemd timers) the monitor expects each slot's run
// within its grace: a schedule whose runs never start is `missed`, and a run that comes clears it.
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { execa } from "execa";
import { afterEach, describe, expect, it } from "vitest";
import { expectedSlot, isOverdue } from "../../src/monitor/detect/overdue-slots.js";
import { AUTOLOOP_CRON, cleanEnv, cleanupTempDirs, tempDir } from "../helpers/cli.js";
import { waitFor } from "../helpers/wait.js";

afterEach(cleanupTempDirs);

describe("expectedSlot and isOverdue", () => {
  const spec = { name: "n", cron: "0 2 * * *", timezone: "Europe/Berlin", jitterMs: 60_000 };
  const ref = Date.parse("2026-11-20T01:00:00Z"); // the 02:00 Berlin run of Nov 20 ran
  it("expects the next slot after the newest run, plus its jitter and the grace", () => {
    const e = expectedSlot(spec, ref, undefined);
    expect(new Date(e.slot!).toISOString()).toBe("2026-11-21T01:00:00.000Z");
    const due = Date.parse("2026-11-21T01:06:00Z");
    expect(isOverdue(e, spec, 300_000, due - 1)).toBe(false);
    expect(isOverdue(e, spec, 300_000, due)).toBe(true);
    expect(expectedSlot(spec, ref, e)).toBe(e);
  });
});

describe("monitor --once without a daemon", () => {
  it("reports a schedule that never runs as missed, and clears it when a run comes", async () => {
    const root = tempDir("autoloop-missed-");
    mkdirSync(join(root, "schedules"));
    mkdirSync(join(root, "work"));
    const config = join(root, "autoloop-cron.toml");
    writeFileSync(
      config,
      'state_dir = "state"\n[http]\nlisten = ""\n[monitor]\nmissed_grace = "1s"\n',
    );
    const cron = (...args: string[]) =>
      execa(process.execPath, [AUTOLOOP_CRON, ...args, "--config", config], {
        env: cleanEnv(),
        extendEnv: false,
        reject: false,
      });
    // The monitor starts watching; then a daily schedule is added whose slot is 4 s away
    // (the check right after it must come before slot and grace, on a busy machine too).
    expect((await cron("monitor", "--once")).exitCode).toBe(0);
    const slot = new Date(Math.ceil(Date.now() / 1000) * 1000 + 4000);
    const cronAt = `${slot.getUTCSeconds()} ${slot.getUTCMinutes()} ${slot.getUTCHours()} * * *`;
    writeFileSync(
      join(root, "schedules", "pods.toml"),
      `[[schedule]]\nname = "nightly"\ncron = "${cronAt}"\nkind = "command"\ncommand = ["true"]\nproject_dir = "../work"\n`,
    );
    expect((await cron("monitor", "--once")).stdout).not.toContain("schedule_trouble");
    const once = await waitFor(
      async () => {
        const r = await cron("monitor", "--once");
        return r.stdout.includes("schedule_trouble") ? r : undefined;
      },
      "the missed slot",
      20_000,
      200,
    );
    expect(once.stdout).toMatch(/firing\s+schedule_trouble/);
    const status = await cron("status");
    expect(status.exitCode).toBe(1);
    expect(status.stdout).toContain(
      `schedule nightly: no run started for its slot at ${slot.toISOString()} (missed)`,
    );

    // The pod finally runs: the slot is no longer missed, and the alert resolves at once.
    expect((await cron("fire", "nightly", "--foreground")).exitCode).toBe(0);
    const after = await cron("monitor", "--once");
    expect(after.stdout).toMatch(/resolved\s+schedule_trouble/);
  }, 60_000);
});
