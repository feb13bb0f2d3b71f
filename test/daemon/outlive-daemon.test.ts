// Runs do not depend on the daemon staying alive: after a kill -9 of the daemon a command run
// goes on writing its output log, and its real exit status reaches the ledger through the
// next daemon, although it ended while no daemon was running.
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { execa } from "execa";
import { afterEach, describe, expect, it } from "vitest";
import { RunLedger } from "../../src/scheduler/ledger/ledger.js";
import { isProcessAlive } from "../../src/util/process.js";
import { AUTOLOOP_CRON, cleanEnv, cleanupTempDirs, tempDir } from "../helpers/cli.js";
import { silentLogger } from "../helpers/daemon.js";
import { waitFor } from "../helpers/wait.js";

afterEach(cleanupTempDirs);

function pendingRun(state: string): { runId: string; pid: number } | undefined {
  try {
    const entries = JSON.parse(readFileSync(join(state, "pending.json"), "utf8")) as Array<{
      runId: string;
      pid?: number;
    }>;
    const e = entries.find((x) => x.pid !== undefined);
    return e === undefined ? undefined : { runId: e.runId, pid: e.pid! };
  } catch {
    return undefined;
  }
}

describe("a command run whose daemon is killed with SIGKILL", () => {
  it("keeps writing its output and its exit status reaches the ledger via the next daemon", async () => {
    const root = tempDir("autoloop-outlive-");
    mkdirSync(join(root, "schedules"));
    mkdirSync(join(root, "work"));
    const config = join(root, "autoloop-cron.toml");
    writeFileSync(
      config,
      'state_dir = "state"\n[http]\nlisten = ""\n[defaults]\ncatch_up = "none"\n',
    );
    const gate = join(root, "go");
    // Writes, waits until the test says go (the daemon is dead by then), writes again, exits 0.
    const script = `console.log("before"); const fs = require("fs"); const t = setInterval(() => { if (fs.existsSync(${JSON.stringify(gate)})) { clearInterval(t); console.log("after the daemon died"); process.exit(0); } }, 50);`;
    const start = () =>
      execa(process.execPath, [AUTOLOOP_CRON, "start", "--config", config], {
        env: cleanEnv(),
        extendEnv: false,
        reject: false,
      });
    const state = join(root, "state");
    const first = start();
    let firstOut = "";
    first.stdout?.on("data", (chunk) => {
      firstOut += chunk;
    });
    // The slot is picked once the daemon runs (its reload picks the file up): a start slowed
    // by a busy machine must not let it pass unseen (catch_up is none).
    await waitFor(() => firstOut.includes("autoloop-cron started"), "the daemon to start");
    // 3-4 s: the folder's watch, its debounce and the reload come first.
    const slot = new Date(Math.ceil(Date.now() / 1000) * 1000 + 3000);
    writeFileSync(
      join(root, "schedules", "s.toml"),
      `[[schedule]]\nname = "long"\ncron = "${slot.getUTCSeconds()} ${slot.getUTCMinutes()} ${slot.getUTCHours()} * * *"\nkind = "command"\ncommand = [${JSON.stringify(process.execPath)}, "-e", ${JSON.stringify(script)}]\nproject_dir = "../work"\n`,
    );
    const run = await waitFor(() => pendingRun(state), "the run in pending.json", 20_000);
    const output = join(state, "output", `${run.runId}.log`);
    await waitFor(() => readFileSync(output, "utf8").includes("before"), "its first line");
    first.kill("SIGKILL");
    await first;
    writeFileSync(gate, "");
    await waitFor(() => !isProcessAlive(run.pid), "the run to end with no daemon");
    expect(readFileSync(output, "utf8")).toContain("after the daemon died");

    const second = start();
    try {
      const summary = await waitFor(() => {
        const s = RunLedger.open(state, { logger: silentLogger }).replay(run.runId)?.summary;
        return s?.status !== undefined && s.status !== "running" ? s : undefined;
      }, "the run's end in the ledger");
      expect(summary).toMatchObject({ status: "completed", exitCode: 0 });
    } finally {
      second.kill("SIGTERM");
      await second;
    }
  }, 60_000);
});
