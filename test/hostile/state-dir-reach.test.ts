// A run is not told where the daemon's state dir is: a real daemon launches a preset run (fired
// through the daemon) and a hook's command run, each of which writes down its whole
// environment. No variable names the state dir or anything in it; what a run needs of the
// daemon's (its schedule's history and runs, a hook's payload) is handed over as copies in the
// run's own area.
import {
  chmodSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { execa } from "execa";
import { Webhook } from "standardwebhooks";
import { afterEach, describe, expect, it } from "vitest";
import { handOver, handoverDir } from "../../src/scheduler/history/handover.js";
import { AUTOLOOP_CRON, cleanEnv, cleanupTempDirs, tempDir } from "../helpers/cli.js";
import { waitFor } from "../helpers/wait.js";
import { type DaemonProcess, startDaemonProcess } from "./daemon-process.js";

const SECRET = `whsec_${Buffer.alloc(32, 9).toString("base64")}`;
const running: DaemonProcess[] = [];

afterEach(async () => {
  for (const d of running.splice(0)) await d.stop();
  cleanupTempDirs();
});

const DUMP =
  "const fs = require('fs'); fs.writeFileSync(process.argv[1], JSON.stringify({ env: process.env, payload: fs.readFileSync(process.env.AUTOLOOP_CRON_HOOK_PAYLOAD, 'utf8') }))";

const readJson = (file: string) => () => {
  try {
    return JSON.parse(readFileSync(file, "utf8")) as Record<string, unknown>;
  } catch {
    return undefined;
  }
};

function stateIn(env: Record<string, string>, state: string): string[] {
  return Object.entries(env)
    .filter(([name, value]) => name.startsWith("AUTOLOOP_CRON_STATE") || value.includes(state))
    .map(([name]) => name);
}

describe("what a run is told of the daemon's state dir", () => {
  it("nothing: its history, runs and hook payload are copies in its own area", async () => {
    const dir = tempDir("autoloop-reach-");
    const preset = join(dir, "dumper");
    mkdirSync(preset);
    writeFileSync(
      join(preset, "agent.sh"),
      `#!/bin/sh\nenv > ${JSON.stringify(join(dir, "preset-env.txt"))}\n"$AUTOLOOP_BIN" runs list > ${JSON.stringify(join(dir, "runs-list.txt"))} 2>&1\ncp "$AUTOLOOP_CRON_RUNS_FILE" ${JSON.stringify(join(dir, "runs.json"))}\nexec "$AUTOLOOP_BIN" emit task.complete done\n`,
    );
    chmodSync(join(preset, "agent.sh"), 0o755);
    writeFileSync(
      join(preset, "autoloops.toml"),
      `[event_loop]\nmax_iterations = 1\n[backend]\ncommand = ${JSON.stringify(join(preset, "agent.sh"))}\nprompt_mode = "file"\n`,
    );
    const secretFile = join(dir, "hook.secret");
    writeFileSync(secretFile, `${SECRET}\n`);
    const daemon = await startDaemonProcess(
      dir,
      `[[schedule]]\nname = "on-push"\ncron = "0 0 1 1 *"\nkind = "command"\ncommand = [${JSON.stringify(process.execPath)}, "-e", ${JSON.stringify(DUMP)}, ${JSON.stringify(join(dir, "hook-run.json"))}]\nproject_dir = "../work"\nhook = { secret_file = ${JSON.stringify(secretFile)} }\n` +
        `[[schedule]]\nname = "nightly"\ncron = "0 3 1 1 *"\npreset = ${JSON.stringify(preset)}\nobjective = "x"\nproject_dir = "../work"\n`,
    );
    running.push(daemon);
    const state = join(dir, "state");

    const body = JSON.stringify({ ref: "refs/heads/main" });
    const deliver = () => {
      const at = new Date();
      return fetch(`${daemon.url}/hooks/on-push`, {
        method: "POST",
        headers: {
          "content-type": "application/json",
          "webhook-id": "msg_reach_1",
          "webhook-timestamp": String(Math.floor(at.getTime() / 1000)),
          "webhook-signature": new Webhook(SECRET).sign("msg_reach_1", at, body),
        },
        body,
      });
    };
    // /healthz answers before the schedules are loaded (they load in slices): until then the
    // hook's path is unknown (404).
    const res = await waitFor(async () => {
      const r = await deliver();
      return r.status === 404 ? undefined : r;
    }, "the hook's schedule to load");
    expect(res.status).toBe(202);
    const hookRun = (await waitFor(readJson(join(dir, "hook-run.json")), "the hook's run")) as {
      env: Record<string, string>;
      payload: string;
    };
    expect(hookRun.payload).toBe(body);
    expect(stateIn(hookRun.env, state)).toEqual([]);
    expect(hookRun.env.AUTOLOOP_CRON_HOOK_PAYLOAD).toContain(
      join(dir, "work", ".autoloop", "cron"),
    );

    // Twice, so that the second run has a history to be handed.
    for (const n of [1, 2]) {
      const fire = await execa(
        process.execPath,
        [AUTOLOOP_CRON, "fire", "nightly", "--config", daemon.config],
        { env: cleanEnv(), extendEnv: false, reject: false },
      );
      expect(fire.exitCode, fire.stderr).toBe(0);
      await waitFor(async () => (await daemon.launches("nightly")) === n, `run ${n}`);
      await waitFor(async () => {
        const r = await execa(
          process.execPath,
          [AUTOLOOP_CRON, "runs", "--schedule", "nightly", "--json", "--config", daemon.config],
          { env: cleanEnv(), extendEnv: false },
        );
        return (JSON.parse(r.stdout) as { status: string }[]).every(
          (x) => x.status !== "running" && x.status !== "scheduled",
        );
      }, `run ${n} to end`);
    }
    const env = Object.fromEntries(
      readFileSync(join(dir, "preset-env.txt"), "utf8")
        .trim()
        .split("\n")
        .map((line) => [line.slice(0, line.indexOf("=")), line.slice(line.indexOf("=") + 1)]),
    ) as Record<string, string>;
    expect(stateIn(env, state)).toEqual([]);
    expect(env.AUTOLOOP_HISTORY_FILE).toContain(join(dir, "work", ".autoloop", "cron"));
    // The second run read its schedule's first run through its copy, which names no state path.
    expect(readFileSync(join(dir, "runs-list.txt"), "utf8")).toMatch(/^nightly-\S+ {2}completed/);
    expect(readFileSync(join(dir, "runs.json"), "utf8")).not.toContain(state);
    // Each hand-over is gone once its run ended.
    await waitFor(
      () => readdirSync(join(dir, "work", ".autoloop", "cron")).length === 0,
      "cleanup",
    );
  }, 60_000);
});

describe("a hand-over folder the run prepared", () => {
  it("is not written through a link, nor over a file planted in it", () => {
    const project = tempDir("autoloop-reach-");
    const outside = tempDir("autoloop-elsewhere-");
    mkdirSync(join(project, ".autoloop"));
    symlinkSync(outside, join(project, ".autoloop", "cron"));
    expect(handOver(project, "nightly-20261129T0300-abcde", { "history.md": "x" })).toBeUndefined();
    expect(readdirSync(outside)).toEqual([]);

    const other = tempDir("autoloop-reach-");
    const dir = handoverDir(other, "nightly-20261129T0300-fghij");
    mkdirSync(dir, { recursive: true });
    const precious = join(outside, "precious");
    writeFileSync(precious, "keep\n");
    symlinkSync(precious, join(dir, "payload"));
    expect(handOver(other, "nightly-20261129T0300-fghij", { payload: "body" })).toBeUndefined();
    expect(readFileSync(precious, "utf8")).toBe("keep\n");
  });
});
