// Reloading one schedule file among many: only that file is read again, the other files'
// schedules stay the very same objects (so their planned slots are untouched), and a broken
// edit keeps the file's last good version.
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { scheduleOverview } from "../../src/operator/overview.js";
import { SchedulerDaemon } from "../../src/scheduler/daemon/daemon.js";
import { cleanupTempDirs, tempDir } from "../helpers/cli.js";
import { silentLogger, writeCronConfig } from "../helpers/daemon.js";

const daemons: SchedulerDaemon[] = [];
afterEach(async () => {
  await Promise.all(daemons.splice(0).map((d) => d.shutdown("terminate", 1_000)));
  cleanupTempDirs();
});

const entry = (name: string, cron: string) =>
  `[[schedule]]\nname = "${name}"\ncron = "${cron}"\nkind = "command"\ncommand = ["/bin/true"]\nproject_dir = "../work"\n\n`;
const presetEntry = (name: string) =>
  `[[schedule]]\nname = "${name}"\ncron = "0 3 * * *"\npreset = "demo"\nobjective = "tidy up"\nproject_dir = "../work"\n\n`;

async function world() {
  const dir = tempDir();
  const config = writeCronConfig(dir, entry("a1", "0 1 * * *") + presetEntry("a2"));
  const b = join(dir, "schedules", "b.toml");
  writeFileSync(b, entry("b1", "0 2 * * *") + entry("b2", "30 2 * * *"));
  const daemon = new SchedulerDaemon(config, { logger: silentLogger });
  daemons.push(daemon);
  await daemon.reload();
  return { daemon, b, inForce: join(config.stateDir, "schedules-in-force.json") };
}

describe("reloading one file among several", () => {
  it("keeps the other files' schedules as they were, and their preset folders", async () => {
    const { daemon, b } = await world();
    const before = new Map(daemon.schedules);
    expect(before.get("a2")).toMatchObject({ kind: "preset" });
    const presetDir = (before.get("a2") as { presetDir?: string }).presetDir;
    expect(presetDir).toMatch(/presets\/demo$/);

    const a1Next = daemon.nextFire("a1");
    writeFileSync(b, entry("b1", "15 2 * * *") + entry("b2", "30 2 * * *"));
    await daemon.reload();
    // Only b.toml was read again, and b1 planned at its new time.
    expect(daemon.nextFire("b1")?.getUTCMinutes()).toBe(15);
    expect(daemon.nextFire("a1")).toEqual(a1Next);

    expect(daemon.schedules.get("a1")).toBe(before.get("a1"));
    expect(daemon.schedules.get("a2")).toBe(before.get("a2"));
    expect((daemon.schedules.get("a2") as { presetDir?: string }).presetDir).toBe(presetDir);
    expect(daemon.schedules.get("b1")).not.toBe(before.get("b1"));
    expect(daemon.schedules.get("b1")?.cron).toBe("15 2 * * *");
    // A file read again yields new objects for all its schedules, changed or not.
    expect(daemon.schedules.get("b2")).toEqual(before.get("b2"));
  });

  it("shows a reload of changed files on the status page's list (a new map each load)", async () => {
    const { daemon, b } = await world();
    const overview = () =>
      scheduleOverview({
        schedules: daemon.schedules,
        ledger: daemon.ledger,
        pause: { all: false, schedules: [] },
        killSwitch: false,
        nextFire: (s) => daemon.nextFire(s.name),
      }).rows.map((r) => `${r.name} ${r.cron}`);
    expect(overview()).toEqual(["a1 0 1 * * *", "a2 0 3 * * *", "b1 0 2 * * *", "b2 30 2 * * *"]);
    const map = daemon.schedules;
    writeFileSync(
      b,
      entry("b1", "15 2 * * *") + entry("b2", "30 2 * * *") + entry("b3", "0 4 * * *"),
    );
    await daemon.reload();
    expect(daemon.schedules).not.toBe(map); // the page's sorted list is kept per map
    expect(overview()).toEqual([
      "a1 0 1 * * *",
      "a2 0 3 * * *",
      "b1 15 2 * * *",
      "b2 30 2 * * *",
      "b3 0 4 * * *",
    ]);
  });

  it("records which file holds each name only when a name came, went or moved", async () => {
    const { daemon, b, inForce } = await world();
    writeFileSync(inForce, "{}\n"); // stands in for a stale record, to see whether it is rewritten
    writeFileSync(b, entry("b1", "45 2 * * *") + entry("b2", "30 2 * * *"));
    await daemon.reload();
    expect(readFileSync(inForce, "utf8")).toBe("{}\n");
    writeFileSync(b, entry("b1", "45 2 * * *") + entry("b3", "30 2 * * *"));
    await daemon.reload();
    expect(JSON.parse(readFileSync(inForce, "utf8"))).toEqual({
      "schedules/test.toml": ["a1", "a2"],
      "schedules/b.toml": ["b1", "b3"],
    });
  });

  it("keeps the last good version of a file broken by an edit, and takes the fix", async () => {
    const { daemon, b } = await world();
    const b1 = daemon.schedules.get("b1");
    writeFileSync(b, `${entry("b1", "61 2 * * *")}`);
    await daemon.reload();
    expect(daemon.invalidProblems.map((p) => p.field)).toEqual(["schedule[0].cron"]);
    expect(daemon.schedules.get("b1")).toBe(b1);
    expect(daemon.schedules.has("b2")).toBe(true);
    writeFileSync(b, entry("b1", "5 2 * * *"));
    await daemon.reload();
    expect(daemon.invalidProblems).toEqual([]);
    expect(daemon.schedules.get("b1")?.cron).toBe("5 2 * * *");
    expect(daemon.schedules.has("b2")).toBe(false);
  });

  it("runs one reload at a time; one asked for meanwhile takes the newest files", async () => {
    const { daemon, b } = await world();
    let loads = 0;
    daemon.on("loaded", () => loads++);
    writeFileSync(b, entry("b1", "10 2 * * *"));
    const first = daemon.reload();
    writeFileSync(b, entry("b1", "20 2 * * *"));
    const second = daemon.reload(); // the first is still running: this one waits for it
    await second;
    expect(daemon.schedules.get("b1")?.cron).toBe("20 2 * * *");
    await first;
    expect(loads).toBe(2);
  });
});
