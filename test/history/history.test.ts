// Runs that remember: a scheduled run's prompt tells about its schedule's recent runs, and its
// event tool lists and replays them. Real `autoloop-cron fire` and the demo agent.
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { execa } from "execa";
import { afterEach, describe, expect, it } from "vitest";
import { IncidentStore } from "../../src/incidents/store.js";
import { runsSnapshot } from "../../src/scheduler/history/runs-snapshot.js";
import { scheduleHistory } from "../../src/scheduler/history/schedule-history.js";
import type { RunSummary } from "../../src/scheduler/ledger/events.js";
import { RunLedger } from "../../src/scheduler/ledger/ledger.js";
import { AUTOLOOP, AUTOLOOP_CRON, cleanEnv, cleanupTempDirs, tempDir } from "../helpers/cli.js";
import { writeCronConfig } from "../helpers/daemon.js";

afterEach(cleanupTempDirs);

function world(history = "") {
  const dir = tempDir("autoloop-history-");
  writeCronConfig(
    dir,
    `[[schedule]]\nname = "nightly"\ncron = "0 3 * * *"\npreset = "demo"\nobjective = "Ship it (stuck)"\nproject_dir = "../work"\nmax_iterations = 2\n${history}\n`,
  );
  const config = join(dir, "autoloop-cron.toml");
  const fire = () =>
    execa(
      process.execPath,
      [AUTOLOOP_CRON, "fire", "nightly", "--foreground", "--config", config],
      {
        reject: false,
        env: cleanEnv(),
        extendEnv: false,
      },
    );
  const starts = () =>
    readFileSync(join(dir, "work", ".autoloop", "journal.jsonl"), "utf8")
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l))
      .filter((r) => r.topic === "iteration.start" && r.iteration === "1");
  return { dir, fire, starts, stateDir: join(dir, "state") };
}

describe("runs that remember", () => {
  it("tells the next run how the last one ended and what it left open", async () => {
    const { dir, fire, starts, stateDir } = world();
    await fire();
    const [first] = starts();
    expect(first.fields.prompt).not.toContain("Recent runs of schedule");
    await fire();
    const second = starts()[1];
    const prompt: string = second.fields.prompt;
    expect(prompt).toContain("Recent runs of schedule nightly (newest first):");
    expect(prompt).toMatch(
      new RegExp(
        `- \\S+ ${first.run}: failed \\(max_iterations\\); 1 task left open: task-\\d+ get sign-off`,
      ),
    );
    expect(prompt).toContain("runs replay <run-id>");
    // Handed over in the run's own area (removed once the run ended), never in the state dir.
    expect(existsSync(join(dir, "work", ".autoloop", "cron", second.run))).toBe(false);
    expect(readdirSync(join(dir, "work", ".autoloop", "cron"))).toEqual([]);

    // The event tool, as the second run would call it, with the copy it was handed at launch.
    const copy = join(dir, "runs.json");
    const ledger = RunLedger.open(stateDir);
    const before = runsSnapshot(ledger, "nightly");
    before.runs = before.runs.filter((r) => r.summary.runId !== second.run);
    writeFileSync(copy, JSON.stringify(before));
    expect(readFileSync(copy, "utf8")).not.toContain(join(stateDir, "output"));
    const env = cleanEnv({ AUTOLOOP_CRON_RUNS_FILE: copy });
    const list = await execa(process.execPath, [AUTOLOOP, "runs", "list"], {
      env,
      extendEnv: false,
    });
    // The copy was taken at launch: the runs before this one.
    expect(list.stdout.split("\n")).toHaveLength(1);
    expect(list.stdout).toContain(`${first.run}  failed (max_iterations)`);
    const replay = await execa(process.execPath, [AUTOLOOP, "runs", "replay", first.run], {
      env,
      extendEnv: false,
    });
    expect(replay.stdout).toContain(`Run ${first.run} of nightly: failed (max_iterations)`);
    expect(replay.stdout).toContain("## Iteration 2");
    const other = await execa(
      process.execPath,
      [AUTOLOOP, "runs", "replay", "other-20260101T0300-abcde"],
      {
        env,
        extendEnv: false,
        reject: false,
      },
    );
    expect(other.exitCode).toBe(2);
    expect(other.stderr).toContain("is not a run of schedule nightly");
  });

  it("tells nothing with history = 0", async () => {
    const { fire, starts } = world("history = 0");
    await fire();
    await fire();
    expect(starts()[1].fields.prompt).not.toContain("Recent runs of schedule");
  });
});

describe("scheduleHistory", () => {
  const run = (n: number): RunSummary => ({
    runId: `nightly-20260101T03${String(n).padStart(2, "0")}-abcde`,
    schedule: "nightly",
    slot: `2026-01-01T03:${String(n).padStart(2, "0")}:00.000Z`,
    status: n % 2 === 0 ? "completed" : "failed",
    finishedAt: `2026-01-01T03:${String(n).padStart(2, "0")}:30.000Z`,
    ...(n % 2 === 1 && { stopReason: "backend_failed" }),
  });

  it("names the open incident's latest entry, and drops the oldest runs to fit the budget", () => {
    const dir = tempDir();
    const incidents = new IncidentStore(join(dir, "incidents"));
    const made = incidents.create({
      name: "Nightly keeps failing",
      schedule: "nightly",
      entry: "first failure",
    });
    incidents.log(made.slug, "the build broke again", "Also");
    const ledger = { listRuns: () => [9, 8, 7, 6, 5].map(run) };
    const input = {
      ledger,
      schedule: { name: "nightly", projectDir: dir },
      incidentsDir: join(dir, "incidents"),
      runs: 5,
    };
    const full = scheduleHistory(input);
    expect(full).toContain(`Open incident ${made.slug} (open): Nightly keeps failing; latest:`);
    expect(full).toContain("Also: the build broke again");
    expect(full.match(/^- /gm)).toHaveLength(5);
    const tight = scheduleHistory({ ...input, budgetChars: 400 });
    expect(tight.length).toBeLessThanOrEqual(400);
    expect(tight).toContain(run(9).runId); // the newest stays
    expect(tight).not.toContain(run(5).runId);
    expect(scheduleHistory({ ...input, runs: 0 })).toBe("");
  });
});
