import { describe, expect, it } from "vitest";
import * as z from "zod";
import { EntryChecks, otherFieldsKey } from "../../src/schedules/entry-check.js";
import { scheduleEntry } from "../../src/schedules/schedule-entry.js";
import { random } from "../helpers/random.js";

const zodAlone = z.array(scheduleEntry);

// Values for each field as TOML (smol-toml) could hand them over: good ones, then bad ones.
const POOLS: Record<string, [unknown[], unknown[]]> = {
  command: [
    [["/bin/true"], ["npm", "run", "nightly"]],
    [[], [""], "ls -l", [1], [" "]],
  ],
  preset: [["autocode", "./presets/mine"], [""]],
  objective: [["Fix the flaky tests", "x".repeat(200)], [""]],
  chain: [["nightly"], [""]],
  project_dir: [["../work", "/srv/repo"], [""]],
  timezone: [
    ["UTC", "Europe/Berlin"],
    ["Mars/Olympus", " "],
  ],
  overlap: [["skip", "queue", "allow"], ["sometimes"]],
  timeout: [
    ["2h", "90m"],
    ["0s", "soon", 5, new Date(Date.UTC(2026, 0, 1))],
  ],
  catch_up: [["none", "latest", "all"], ["some"]],
  catch_up_window: [["6h"], ["-1h"]],
  jitter: [["30s", "0s"], ["lots"]],
  after: [
    [[], ["build"]],
    [["Bad_Name"], "build"],
  ],
  max_iterations: [
    [1, 40],
    [0, 2.5, -0],
  ],
  isolation: [["worktree", "shared"], ["both"]],
  env: [
    [{}, { CI: "1" }, { CI: "1", LANG: "C" }, { LANG: "C", CI: "1" }],
    [{ "1X": "a" }, { A: 1 }],
  ],
  env_file: [["secrets.env", ["a.env", "b.env"]], [""]],
  alert: [[[], ["ops"], ["ops", "mail"]], [["bad name"]]],
  enabled: [[true, false], ["yes"]],
  history: [
    [0, 3, 20, -0],
    [21, Number.NaN, Number.POSITIVE_INFINITY],
  ],
  monitor: [
    [{}, { stall_after: "20m" }, { gate_rejections: 2 }],
    [{ stall_after: "1s0" }, { x: 1 }],
  ],
  colour: [[], ["blue"]], // no such field
};
const NEEDS: Record<string, string[]> = {
  command: ["command"],
  preset: ["preset", "objective"],
  chain: ["chain", "objective"],
};
/** Fields a kind forbids (and `colour`, no field at all): added now and then only. */
const FORBIDDEN: Record<string, string[]> = {
  command: ["preset", "objective", "chain", "max_iterations", "isolation", "env_file"],
  preset: ["command", "chain"],
  chain: ["preset", "command", "max_iterations", "isolation"],
};
const NAMES: [unknown[], unknown[]] = [
  ["nightly", "job-7", "a", "x".repeat(63)],
  ["Bad_Name", "-x", "x".repeat(64), 7, undefined],
];
const CRONS: [unknown[], unknown[]] = [
  ["0 3 * * *", "*/5 * * * 1-5", "@daily", "0 0 29 2 *"],
  ["61 * * * *", "0 0 31 2 *", 5],
];
/** Mostly a good value, now and then (`odds`) a bad one. */
const someValue = (r: () => number, [good, bad]: [unknown[], unknown[]], odds = 0.02) =>
  r() < odds || good.length === 0 ? pick(r, bad) : pick(r, good);

/** An entry's fields other than name and cron: what its kind needs and a few more, mostly good. */
function body(r: () => number): Record<string, unknown> {
  const kind = someValue(r, [["command", "preset", "chain", undefined], ["cron"]], 0.05) as
    | string
    | undefined;
  const out: Record<string, unknown> = kind === undefined ? {} : { kind };
  const fields = new Set(NEEDS[kind ?? "preset"] ?? []);
  const forbidden = [...(FORBIDDEN[kind ?? "preset"] ?? []), "colour"];
  for (const field of Object.keys(POOLS))
    if (r() < (forbidden.includes(field) ? 0.01 : 0.12)) fields.add(field);
  for (const field of fields) {
    out[field] = someValue(r, POOLS[field]!);
  }
  return out;
}

/** `b` with one field's value changed (or added), good or bad. */
function twin(r: () => number, b: Record<string, unknown>): Record<string, unknown> {
  const field = pick(r, Object.keys(POOLS));
  return { ...b, [field]: someValue(r, POOLS[field]!, 0.2) };
}

const pick = <T>(r: () => number, pool: readonly T[]) => pool[Math.floor(r() * pool.length)]!;

/** What zod says of a list, comparable: the outputs, or every issue's path, code and words. */
function verdict(result: ReturnType<typeof zodAlone.safeParse>) {
  if (result.success) return { data: result.data };
  return { issues: result.error.issues.map((i) => ({ path: i.path, code: i.code, m: i.message })) };
}

describe("EntryChecks", () => {
  it("says what zod alone says of every list of entries (random files, repeats and faults)", () => {
    let hits = 0;
    let failures = 0;
    for (let seed = 1; seed <= 400; seed++) {
      const r = random(seed * 104_729);
      // A few bodies, and near twins of them that differ in one field's value.
      const bodies = Array.from({ length: 1 + Math.floor(r() * 3) }, () => body(r));
      for (const b of [...bodies]) bodies.push(twin(r, b), twin(r, b));
      const checks = new EntryChecks();
      // One file's entries in chunks, as a load checks them: repeats of a few bodies with a
      // new name and cron each, and now and then an entry that lacks one or is not a table.
      for (let chunk = 0; chunk < 4; chunk++) {
        const entries = Array.from({ length: 1 + Math.floor(r() * 12) }, () => {
          if (r() < 0.02) return pick(r, ["a string", null, [], 42]);
          const entry: Record<string, unknown> = {
            name: someValue(r, NAMES),
            cron: someValue(r, CRONS),
          };
          if (r() < 0.05) delete entry.cron;
          return Object.assign(entry, pick(r, bodies));
        });
        const before = checks.repeats;
        const ours = verdict(checks.check(entries));
        hits += checks.repeats - before;
        const alone = verdict(zodAlone.safeParse(entries));
        expect(ours, `seed ${seed}, chunk ${chunk}: ${JSON.stringify(entries)}`).toEqual(alone);
        if (alone.issues) failures++;
      }
    }
    // Both ways were taken often: repeats that zod did not see, and lists zod refused.
    expect(hits).toBeGreaterThan(500);
    expect(failures).toBeGreaterThan(200);
  });

  it("hands zod one entry of a thousand that differ only in name and cron", () => {
    const checks = new EntryChecks();
    const same = { kind: "command", command: ["/bin/true"], project_dir: "../work" };
    const entries = Array.from({ length: 1000 }, (_, n) => ({
      name: `job-${n}`,
      cron: `${n % 60} ${Math.floor(n / 60) % 24} * * *`,
      ...same,
    }));
    const result = checks.check(entries);
    expect(checks.repeats).toBe(999);
    expect(result.success && result.data.map((e) => [e.name, e.cron])).toEqual(
      entries.map((e) => [e.name, e.cron]),
    );
    // A repeat with a bad name or cron is zod's again, and so is its message.
    const bad = checks.check([
      { ...entries[0], name: "Job" },
      { ...entries[1], cron: "* *" },
    ]);
    expect(checks.repeats).toBe(999);
    expect(bad.success).toBe(false);
    expect(bad.error?.issues.map((i) => i.path)).toEqual([
      [0, "name"],
      [1, "cron"],
    ]);
  });

  it("keys tell apart what zod could tell apart, and leave out what they cannot spell", () => {
    const key = (e: object) => otherFieldsKey({ name: "n", cron: "* * * * *", ...e });
    expect(key({ history: 0 })).not.toBe(key({ history: -0 }));
    expect(key({ history: 3 })).not.toBe(key({ history: "3" }));
    expect(key({ after: ["a,b"] })).not.toBe(key({ after: ["a", "b"] }));
    expect(key({ env: { A: "1", B: "2" } })).not.toBe(key({ env: { B: "2", A: "1" } }));
    expect(key({ timeout: new Date(0) })).toBeUndefined();
    expect(key({ objective: "x".repeat(5000) })).toBeUndefined();
    expect(otherFieldsKey({ name: "n" })).toBeUndefined();
    expect(otherFieldsKey(["n"])).toBeUndefined();
    expect(key({ kind: "command" })).toBe(
      otherFieldsKey({ cron: "0 0 * * *", name: "m", kind: "command" }),
    );
  });
});
