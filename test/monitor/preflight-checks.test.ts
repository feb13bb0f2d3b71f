// `preflight` without a daemon (Kubernetes, systemd timers): the monitor checks each agent's
// login before its slot, pages auth_expiring once and resolves it when a check passes; while
// a live daemon serves the state dir, the daemon checks and the monitor does not.
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { execa } from "execa";
import { afterEach, describe, expect, it } from "vitest";
import { PreflightChecks } from "../../src/monitor/preflight-checks.js";
import { runningDaemon } from "../../src/scheduler/daemon/control.js";
import { readPreflightState } from "../../src/scheduler/preflight/preflight-file.js";
import type { Schedule } from "../../src/scheduler/schedules/schedule-file.js";
import { nextSlotFire } from "../../src/scheduler/timing/planner.js";
import { AUTOLOOP_CRON, cleanEnv, cleanupTempDirs, tempDir } from "../helpers/cli.js";
import { capturingLogger, writeCronConfig } from "../helpers/daemon.js";
import { BIN, loggedOutEnv } from "../helpers/logged-in.js";
import { waitFor } from "../helpers/wait.js";
import { webhookReceiver } from "../helpers/webhook-receiver.js";

const closers: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const c of closers.splice(0).reverse()) await c();
  cleanupTempDirs();
});

const TIMEOUT = 90_000;

/** A preset whose backend is the real claude CLI from node_modules/.bin. */
function claudePreset(): string {
  const dir = join(tempDir(), "claude");
  mkdirSync(dir);
  writeFileSync(join(dir, "autoloops.toml"), `[backend]\ncommand = "${join(BIN, "claude")}"\n`);
  return dir;
}

/** `autoloop-cron <args>` as a real process, logged out of every agent; stopped after the test. */
function cron(args: string[]) {
  const child = execa(process.execPath, [AUTOLOOP_CRON, ...args], {
    env: cleanEnv(loggedOutEnv()),
    extendEnv: false,
    reject: false,
    all: true,
  });
  closers.push(async () => {
    child.kill("SIGTERM");
    await child;
  });
  return child;
}

describe("the monitor's preflight, without a daemon", () => {
  it(
    "pages auth_expiring once for a logged-out agent and resolves it once the check passes",
    async () => {
      const { posted, url } = await webhookReceiver(closers);
      const dir = tempDir();
      // A slot every second, each `preflight` away at once: every pass has a slot to check.
      const config = writeCronConfig(
        dir,
        `[[schedule]]\nname = "nightly"\ncron = "* * * * * *"\npreset = "${claudePreset()}"\nobjective = "o"\nproject_dir = "../work"\npreflight = "1m"\nenv_file = "agent.env"\n`,
        `[[channel]]\nname = "hook"\ntype = "webhook"\nurl = "${url}/alerts"\n`,
      );
      const envFile = join(dir, "schedules", "agent.env");
      writeFileSync(envFile, "# logged out\n", { mode: 0o600 });
      const monitor = cron(["monitor", "--config", join(dir, "autoloop-cron.toml")]);
      const pages = () =>
        posted.filter((p) => p.data.kind === "auth_expiring").map((p) => p.data.status);
      await waitFor(() => pages().length > 0, "the auth_expiring page", 60_000);
      expect(readPreflightState(config.stateDir).nightly?.agents).toMatchObject([
        { agent: "claude", result: { kind: "refused" } },
      ]);
      monitor.kill("SIGTERM");
      expect((await monitor).exitCode).toBe(0);
      expect(pages()).toEqual(["firing"]);
      // Logged in again, by a key in the schedule's env_file: the next slot's check passes,
      // here in one pass of the monitor (as a systemd timer or a cron line runs it).
      writeFileSync(envFile, "ANTHROPIC_API_KEY=sk-ant-test\n");
      // A slot is checked once: the next pass checks the slot after the one checked last.
      const checked = Date.parse(readPreflightState(config.stateDir).nightly!.slot);
      await waitFor(() => Date.now() > checked, "the slot checked last to pass", 5_000);
      const once = await cron(["monitor", "--once", "--config", join(dir, "autoloop-cron.toml")]);
      expect(once.exitCode, once.all).toBe(0);
      expect(pages()).toEqual(["firing", "resolved"]);
    },
    TIMEOUT,
  );

  it(
    "leaves the checks to a live daemon on the same state dir, and takes them up once it is gone",
    async () => {
      const dir = tempDir();
      const config = writeCronConfig(dir, "");
      const daemon = cron(["start", "--config", join(dir, "autoloop-cron.toml")]);
      await waitFor(() => runningDaemon(config.stateDir), "the daemon's daemon.json", 30_000);
      const { logger: log, lines } = capturingLogger();
      const env = loggedOutEnv();
      const checks = new PreflightChecks({
        stateDir: config.stateDir,
        log,
        env: () => env,
        now: Date.now,
      });
      const yearly = {
        kind: "preset",
        name: "yearly",
        enabled: true,
        cron: "0 0 1 1 *",
        timezone: "UTC",
        jitterMs: 0,
        preset: "p",
        presetDir: claudePreset(),
        sets: [],
        env: {},
        envFiles: [],
        projectDir: tempDir(),
        preflightMs: 400 * 86_400_000,
      } as unknown as Schedule;
      await checks.tick([yearly]);
      expect(readPreflightState(config.stateDir)).toEqual({});
      expect(lines.map((l) => l.msg)).toEqual([
        "preflight: left to the daemon serving the state dir",
      ]);
      daemon.kill("SIGTERM");
      await daemon;
      await checks.tick([yearly]);
      expect(lines.map((l) => l.msg)).toContain(
        "preflight: the daemon is gone; the monitor checks",
      );
      expect(readPreflightState(config.stateDir).yearly?.agents).toMatchObject([
        { agent: "claude", result: { kind: "refused" } },
      ]);
    },
    TIMEOUT,
  );

  it("checks for the next slot as it fires: jittered, and none for a disabled schedule", () => {
    const s = { name: "n", cron: "0 3 * * *", timezone: "UTC", jitterMs: 0, enabled: true };
    const now = Date.parse("2026-12-01T01:00:00Z");
    const at = (x: object) => nextSlotFire({ ...s, ...x } as unknown as Schedule, now);
    expect(at({})).toEqual(new Date("2026-12-01T03:00:00Z"));
    const jittered = at({ jitterMs: 600_000 })!.getTime();
    expect(jittered).toBeGreaterThan(Date.parse("2026-12-01T03:00:00Z"));
    expect(jittered).toBeLessThan(Date.parse("2026-12-01T03:10:00Z"));
    expect(at({ enabled: false })).toBeUndefined();
  });
});
