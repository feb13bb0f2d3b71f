// A reload that reads only the changed files (the others from the file cache, their clean
// schedules not checked again one by one) must put in force exactly what a full check of every
// file would, given the same schedules in force before it.
import { rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { ScheduleFileCache } from "../../src/scheduler/schedules/file-cache.js";
import type { Schedule } from "../../src/scheduler/schedules/schedule-file.js";
import { loadScheduleSet } from "../../src/scheduler/schedules/schedule-set.js";
import { cleanupTempDirs, tempDir } from "../helpers/cli.js";
import { writeCronConfig } from "../helpers/daemon.js";
import { random } from "../helpers/random.js";

afterEach(cleanupTempDirs);

interface Entry {
  name: string;
  cron: string;
  after?: string;
}

const toml = (entries: Entry[]) =>
  entries
    .map(
      (e) =>
        `[[schedule]]\nname = "${e.name}"\ncron = "${e.cron}"\nkind = "command"\ncommand = ["/bin/true"]\nproject_dir = "../work"\n${e.after === undefined ? "" : `after = ["${e.after}"]\n`}\n`,
    )
    .join("");

function world() {
  const dir = tempDir();
  const config = writeCronConfig(dir, "");
  rmSync(join(dir, "schedules", "test.toml"));
  const write = (file: string, entries: Entry[]) =>
    writeFileSync(join(dir, "schedules", file), toml(entries));
  return { config, write, dir };
}

/** The map's entries by name, for comparing sets put in force in different orders. */
const byName = (map: ReadonlyMap<string, Schedule>) =>
  [...map].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));

describe("a reload that reads only the changed files", () => {
  it("puts the changed files' schedules in force and keeps the others' very objects", () => {
    const { config, write } = world();
    const cache = new ScheduleFileCache();
    write("a.toml", [
      { name: "a1", cron: "0 1 * * *" },
      { name: "a2", cron: "0 2 * * *" },
    ]);
    write("b.toml", [{ name: "b1", cron: "0 3 * * *" }]);
    const first = loadScheduleSet(config, new Map(), cache);
    const inForce = first.schedules;
    const [a1, a2, b1] = ["a1", "a2", "b1"].map((n) => inForce.get(n));

    write("a.toml", [
      { name: "a1", cron: "30 1 * * *" },
      { name: "a2", cron: "0 2 * * *" },
      { name: "a3", cron: "0 4 * * *" },
    ]);
    const second = loadScheduleSet(config, inForce, cache);
    const now = second.schedules;
    expect(now.get("a1")).not.toEqual(a1);
    expect(now.get("a1")?.cron).toBe("30 1 * * *");
    expect(now.get("a2")).not.toBe(a2); // read again: a new object, equal
    expect(now.get("a2")).toEqual(a2);
    expect(now.get("a3")?.cron).toBe("0 4 * * *");
    expect(now.get("b1")).toBe(b1); // its file did not change
    expect(second.problems).toEqual([]);
  });

  it("checks names and after dependencies across files: a name gone, taken, a cycle", () => {
    const { config, write } = world();
    const cache = new ScheduleFileCache();
    write("a.toml", [{ name: "a1", cron: "0 1 * * *" }]);
    write("b.toml", [{ name: "b1", cron: "0 3 * * *" }]);
    let inForce = loadScheduleSet(config, new Map(), cache).schedules;
    // A name taken from an unchanged file: the file in force keeps it.
    write("a.toml", [
      { name: "a1", cron: "0 1 * * *" },
      { name: "b1", cron: "0 5 * * *" },
    ]);
    const taken = loadScheduleSet(config, inForce, cache);
    expect(taken.problems.map((p) => `${p.file} ${p.field}`)).toEqual([
      "schedules/a.toml schedule[1].name",
    ]);
    expect(taken.schedules.get("b1")?.file).toBe("schedules/b.toml");
    inForce = taken.schedules;
    // Fixed, then a cycle through an unchanged file.
    write("a.toml", [{ name: "a1", cron: "0 1 * * *" }]);
    inForce = loadScheduleSet(config, inForce, cache).schedules;
    write("b.toml", [{ name: "b1", cron: "0 3 * * *", after: "a1" }]);
    inForce = loadScheduleSet(config, inForce, cache).schedules;
    write("a.toml", [{ name: "a1", cron: "0 1 * * *", after: "b1" }]);
    const cycle = loadScheduleSet(config, inForce, cache);
    expect(cycle.problems.map((p) => `${p.file} ${p.expected}`)).toEqual([
      "schedules/a.toml no cycle of after dependencies (a1 → b1 → a1)",
      "schedules/b.toml no cycle of after dependencies (a1 → b1 → a1)",
    ]);
    // A name gone.
    write("a.toml", []);
    const gone = loadScheduleSet(config, cycle.schedules, cache);
    expect(gone.schedules.has("a1")).toBe(false);
  });

  it("checks every file again while a check across files fails in an unchanged one", () => {
    const { config, write } = world();
    const cache = new ScheduleFileCache();
    write("a.toml", [{ name: "x", cron: "0 1 * * *", after: "y" }]);
    write("b.toml", [{ name: "y", cron: "0 2 * * *" }]);
    write("c.toml", [{ name: "z", cron: "0 3 * * *" }]);
    let inForce = loadScheduleSet(config, new Map(), cache).schedules;
    write("b.toml", []); // y goes: a.toml, unchanged, now waits for a schedule that is gone
    const gone = loadScheduleSet(config, inForce, cache);
    expect(gone.problems.map((p) => `${p.file} ${p.field}`)).toEqual([
      "schedules/a.toml schedule[0].after[0]",
    ]);
    inForce = gone.schedules;
    write("c.toml", [{ name: "z", cron: "30 3 * * *" }]); // an edit elsewhere
    const next = loadScheduleSet(config, inForce, cache);
    expect(next.problems.map((p) => p.file)).toEqual(["schedules/a.toml"]);
    write("b.toml", [{ name: "y", cron: "0 2 * * *" }]); // y is back: all clean again
    inForce = loadScheduleSet(config, next.schedules, cache).schedules;
    write("c.toml", [{ name: "z", cron: "45 3 * * *" }]);
    const clean = loadScheduleSet(config, inForce, cache);
    expect(clean.problems).toEqual([]);
  });

  it("puts in force what a full check would, over 30 seeded sequences of edits", () => {
    for (let seed = 1; seed <= 30; seed++) {
      const rand = random(seed);
      const int = (n: number) => Math.floor(rand() * n);
      const { config, write } = world();
      const files: Entry[][] = [[], [], [], []];
      let next = 0;
      for (const f of files)
        for (let i = 0; i < 3; i++) f.push({ name: `s${next++}`, cron: `${int(60)} * * * *` });
      for (const [i, f] of files.entries()) write(`f${i}.toml`, f);
      const cache = new ScheduleFileCache();
      let inForce = loadScheduleSet(config, new Map(), cache).schedules;
      for (let step = 0; step < 12; step++) {
        const k = int(files.length);
        const file = files[k]!;
        const roll = rand();
        if (roll < 0.45 && file.length > 0) file[int(file.length)]!.cron = `${int(60)} * * * *`;
        else if (roll < 0.55) file.push({ name: `s${next++}`, cron: "0 0 * * *" });
        else if (roll < 0.65)
          file.push({ name: `s${int(next)}`, cron: "0 0 * * *" }); // maybe taken
        else if (roll < 0.72 && file.length > 0) file.splice(int(file.length), 1);
        else if (roll < 0.8 && file.length > 0) file[int(file.length)]!.after = `s${int(next)}`;
        else if (roll < 0.87 && file.length > 0) file[int(file.length)]!.cron = "61 * * * *";
        else if (file.length > 0) {
          const to = (k + 1) % files.length; // a schedule moves to the next file
          files[to]!.push(file.shift()!);
          write(`f${to}.toml`, files[to]!);
        }
        write(`f${k}.toml`, file); // only the files edited: the others stay cached
        // The full check, from the same set in force, without the cache.
        const full = loadScheduleSet(config, new Map(inForce));
        const update = loadScheduleSet(config, inForce, cache);
        const where = `seed ${seed} step ${step}`;
        expect(byName(update.schedules), where).toEqual(byName(full.schedules));
        expect(update.problems, where).toEqual(full.problems);
        inForce = update.schedules;
      }
    }
  });
});
