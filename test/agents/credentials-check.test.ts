// `preflight`: each real agent CLI's own credentials check, before a slot. Logged out (a fresh
// HOME, no key) each refuses, as an expired login would; logged in by key, claude's passes.
// What the checks found is kept in preflight.json, from which the monitor raises one
// auth_expiring per CLI and drops it once a later check passes.
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { loginConditions, refusedLogins } from "../../src/monitor/detect/agent-logins.js";
import { MonitorService } from "../../src/monitor/service.js";
import { agentsOfPreset, checkCredentials } from "../../src/scheduler/preflight/credentials.js";
import { readPreflightState } from "../../src/scheduler/preflight/preflight-file.js";
import { Preflights, preflightDue } from "../../src/scheduler/preflight/preflights.js";
import type { Schedule } from "../../src/scheduler/schedules/schedule-file.js";
import { cleanupTempDirs, tempDir } from "../helpers/cli.js";
import { silentLogger, startDaemon, writeCronConfig } from "../helpers/daemon.js";
import { BIN, type Cli, loggedOutEnv } from "../helpers/logged-in.js";
import { enqueuedMessages } from "../helpers/outbox.js";
import { waitFor } from "../helpers/wait.js";

afterEach(cleanupTempDirs);

const TIMEOUT = 60_000;

/** A preset whose backend is `cli` from node_modules/.bin. */
function presetOf(cli: Cli): string {
  const dir = join(tempDir(), cli);
  mkdirSync(dir);
  writeFileSync(
    join(dir, "autoloops.toml"),
    `[backend]\ncommand = ${JSON.stringify(join(BIN, cli))}\n`,
  );
  return dir;
}

const silent = { info: () => {}, warn: () => {} };

describe("an agent's credentials checked before its slot", () => {
  for (const cli of ["claude", "codex", "gemini"] as const)
    it(
      `${cli}: logged out, its check refuses`,
      async () => {
        const [agent] = agentsOfPreset(presetOf(cli), []);
        const result = await checkCredentials(agent!, tempDir(), loggedOutEnv());
        expect(result.kind, JSON.stringify(result)).toBe("refused");
      },
      TIMEOUT,
    );

  it(
    "keeps what each check found, pages the refusal once per CLI and drops it when a check passes",
    async () => {
      const stateDir = tempDir();
      let env: NodeJS.ProcessEnv = loggedOutEnv();
      const preflights = new Preflights({ stateDir, log: silent, env: () => env, now: Date.now });
      const schedule = (name: string) =>
        ({
          kind: "preset",
          name,
          preset: "p",
          presetDir: presetOf("claude"),
          sets: [],
          env: {},
          envFiles: [],
          projectDir: tempDir(),
          preflightMs: 1_800_000,
        }) as unknown as Extract<Schedule, { kind: "preset" }>;
      const slot = new Date(Date.now() + 600_000);
      await preflights.check(schedule("nightly"), slot);
      await preflights.check(schedule("weekly"), slot);
      const loaded = new Set(["nightly", "weekly"]);
      const conditions = loginConditions(refusedLogins(readPreflightState(stateDir), loaded));
      expect(conditions).toHaveLength(1);
      expect(conditions[0]).toMatchObject({
        kind: "auth_expiring",
        fingerprint: "auth_expiring:claude",
        agent: "claude",
        schedules: ["nightly", "weekly"],
        nextSlot: slot.toISOString(),
      });
      // A check that cannot tell (the CLI is gone) keeps the refusal: only a pass ends it.
      const gone = { ...schedule("nightly"), presetDir: presetOf("claude") };
      writeFileSync(
        join(gone.presetDir!, "autoloops.toml"),
        '[backend]\ncommand = "/no/such/claude"\n',
      );
      await preflights.check(gone, new Date(slot.getTime() + 30_000));
      expect(readPreflightState(stateDir).nightly?.agents[0]?.result.kind).toBe("refused");
      // Logged in again (a key): the next check passes and the condition is gone.
      env = { ...env, ANTHROPIC_API_KEY: "sk-ant-test" };
      await preflights.check(schedule("nightly"), new Date(slot.getTime() + 60_000));
      await preflights.check(schedule("weekly"), new Date(slot.getTime() + 60_000));
      const state = readPreflightState(stateDir);
      expect(state.nightly?.agents[0]?.result).toEqual({ kind: "passed" });
      expect(loginConditions(refusedLogins(state, loaded))).toEqual([]);
    },
    TIMEOUT,
  );
});

describe("the daemon's preflight", () => {
  it("is due once per slot, from `preflight` before it", () => {
    const slot = new Date("2026-12-01T03:00:00Z");
    const at = (iso: string) => Date.parse(iso);
    expect(preflightDue(1_800_000, slot, undefined, at("2026-12-01T02:29:59Z"))).toBeUndefined();
    expect(preflightDue(1_800_000, slot, undefined, at("2026-12-01T02:30:00Z"))).toEqual(slot);
    expect(
      preflightDue(1_800_000, slot, slot.toISOString(), at("2026-12-01T02:45:00Z")),
    ).toBeUndefined();
    expect(preflightDue(undefined, slot, undefined, at("2026-12-01T02:45:00Z"))).toBeUndefined();
    expect(
      preflightDue(1_800_000, undefined, undefined, at("2026-12-01T02:45:00Z")),
    ).toBeUndefined();
  });

  it(
    "checks a schedule's agent once its next slot is `preflight` away; the monitor pages once and resolves",
    async () => {
      const dir = tempDir();
      const home = tempDir();
      const config = writeCronConfig(
        dir,
        `[[schedule]]\nname = "yearly"\ncron = "0 0 1 1 *"\npreset = ${JSON.stringify(presetOf("claude"))}\nobjective = "o"\nproject_dir = "../work"\npreflight = "400d"\nenv = { HOME = ${JSON.stringify(home)}, ANTHROPIC_API_KEY = "", CLAUDE_CODE_OAUTH_TOKEN = "", ANTHROPIC_AUTH_TOKEN = "" }\n`,
        '\n[[channel]]\nname = "ops"\ntype = "email"\nfrom = "cron@example.com"\nto = ["ops@example.com"]\n',
      );
      const daemon = await startDaemon(config);
      const monitor = new MonitorService({ config, logger: silentLogger, daemon });
      try {
        const check = await waitFor(
          () => readPreflightState(config.stateDir).yearly,
          "the preflight check of yearly",
        );
        const slot = daemon.nextFire("yearly")!;
        expect(check.slot).toBe(slot.toISOString());
        expect(check.agents).toMatchObject([{ agent: "claude", result: { kind: "refused" } }]);
        await monitor.runOnce();
        await monitor.runOnce();
        const pages = () =>
          enqueuedMessages(config.stateDir).filter((m) => m.kind === "auth_expiring");
        expect(pages().map((m) => m.status)).toEqual(["firing"]);
        expect(pages()[0]!.title).toBe(
          `The claude login is refused: the run of schedule yearly at ${slot.toISOString()} would fail`,
        );
        // Logged in again; the next slot's check passes.
        const yearly = daemon.schedules.get("yearly") as Extract<Schedule, { kind: "preset" }>;
        const keyed = { ...yearly, env: { ...yearly.env, ANTHROPIC_API_KEY: "sk-ant-test" } };
        await daemon.preflights.check(keyed, new Date(slot.getTime() + 1000));
        await monitor.runOnce();
        expect(pages().map((m) => m.status)).toEqual(["firing", "resolved"]);
        expect(pages()[1]!.resolution).toBe("the claude login check passed");
      } finally {
        await monitor.stop();
        await daemon.shutdown();
      }
    },
    TIMEOUT,
  );
});
