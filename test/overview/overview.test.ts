// The pure cores of the operator verbs: run lookup by prefix, health buckets at a fixed time,
// which run folders `runs clean` removes, and how config layers become `--set`s.
import { describe, expect, it } from "vitest";
import { planClean } from "../../src/harness/overview/clean.js";
import { classifyRuns, healthOf } from "../../src/harness/overview/health.js";
import { findRun, processCheck } from "../../src/harness/overview/runs.js";
import { layeredSets } from "../../src/harness/preset/layers.js";
import type { RegistryEntry } from "../../src/journal/registry-view.js";

const NOW = Date.parse("2026-03-01T12:00:00Z");
const ago = (minutes: number) => new Date(NOW - minutes * 60_000).toISOString();
const run = (run_id: string, status: string, minutes: number, extra: Partial<RegistryEntry> = {}) =>
  ({ run_id, status, preset: "demo", updated_at: ago(minutes), ...extra }) as RegistryEntry;
const alive = processCheck((pid) => pid === 1, "here");

describe("findRun", () => {
  const runs = [
    run("run-aa1", "completed", 1),
    run("run-aa2", "failed", 1),
    run("run-b", "running", 1),
  ];
  it("takes an exact id, then a unique prefix, and names the ids a shared prefix matches", () => {
    expect(findRun(runs, "run-b")).toMatchObject({ kind: "found", run: { run_id: "run-b" } });
    expect(findRun(runs, "run-aa1")).toMatchObject({ kind: "found" });
    expect(findRun(runs, "run-aa")).toEqual({
      kind: "ambiguous",
      query: "run-aa",
      matches: ["run-aa1", "run-aa2"],
    });
    expect(findRun(runs, "zz")).toEqual({ kind: "none", query: "zz" });
    expect(findRun(runs, "")).toEqual({ kind: "none", query: "" });
  });
});

describe("run health", () => {
  it("bands a live run by its preset's quiet times, and ended runs by the last day", () => {
    expect(healthOf(run("a", "running", 4), NOW, alive)).toBe("active");
    expect(healthOf(run("a", "running", 6), NOW, alive)).toBe("watching");
    expect(healthOf(run("a", "running", 11), NOW, alive)).toBe("stuck");
    // autosimplify is watched after 2 minutes and stuck after 6, as in the public table.
    expect(healthOf(run("a", "running", 3, { preset: "autosimplify" }), NOW, alive)).toBe(
      "watching",
    );
    expect(healthOf(run("a", "running", 7, { preset: "autosimplify" }), NOW, alive)).toBe("stuck");
    expect(healthOf(run("a", "timed_out", 60), NOW, alive)).toBe("recent_failed");
    expect(healthOf(run("a", "completed", 23 * 60), NOW, alive)).toBe("recent_completed");
    expect(healthOf(run("a", "completed", 25 * 60), NOW, alive)).toBeUndefined();
    expect(healthOf(run("a", "stopped", 1), NOW, alive)).toBeUndefined();
  });

  it("judges a live run whose process is gone as stopped, and one without a time as active", () => {
    expect(healthOf(run("a", "running", 60, { pid: 2 }), NOW, alive)).toBeUndefined();
    expect(healthOf(run("a", "running", 60, { pid: 1 }), NOW, alive)).toBe("stuck");
    expect(healthOf({ run_id: "a", status: "running" }, NOW, alive)).toBe("active");
    // Another host's pid says nothing about this one's processes.
    expect(healthOf(run("a", "running", 1, { pid: 2, host: "there" }), NOW, alive)).toBe("active");
    expect(healthOf(run("a", "running", 1, { pid: 2, host: "here" }), NOW, alive)).toBeUndefined();
    const h = classifyRuns([run("x", "running", 1), run("y", "failed", 1)], NOW, alive);
    expect(h.active.map((r) => r.run_id)).toEqual(["x"]);
    expect(h.recent_failed.map((r) => r.run_id)).toEqual(["y"]);
  });
});

describe("planClean", () => {
  const folders = [
    { name: "old", mtimeMs: NOW - 8 * 86_400_000 },
    { name: "new", mtimeMs: NOW - 3_600_000 },
    { name: "live", mtimeMs: NOW - 30 * 86_400_000 },
  ];
  it("removes folders older than the age, never a live run's; age 0 removes all not live", () => {
    expect(planClean(folders, new Set(["live"]), 7 * 86_400_000, NOW)).toEqual([
      { kind: "remove", name: "old" },
      { kind: "keep", name: "new", why: "recent" },
      { kind: "keep", name: "live", why: "live" },
    ]);
    expect(planClean(folders, new Set(["live"]), 0, NOW).map((d) => d.kind)).toEqual([
      "remove",
      "remove",
      "keep",
    ]);
  });
});

describe("layeredSets", () => {
  it("puts the user file under the preset and the overrides over it, in order", () => {
    const { sets, provenance } = layeredSets([
      {
        name: "user",
        file: "u.toml",
        values: { event_loop: { max_iterations: 9, ask_event: "" } },
      },
      { name: "project", file: "p.toml", values: { event_loop: { max_iterations: 2 } } },
      { name: "user override", file: "uo.toml", values: { backend: { args: ["--x"] } } },
      { name: "repo override", file: "ro.toml", values: { backend: { command: "true" } } },
    ]);
    // The user's max_iterations loses to the preset's; a string stays a string through --set.
    expect(sets).toEqual([
      'event_loop.ask_event=""',
      'backend.args=[ "--x" ]',
      'backend.command="true"',
    ]);
    expect(provenance).toEqual({
      "event_loop.max_iterations": "project (p.toml)",
      "event_loop.ask_event": "user (u.toml)",
      "backend.args": "user override (uo.toml)",
      "backend.command": "repo override (ro.toml)",
    });
  });

  it("refuses a key --set cannot carry, naming the file", () => {
    expect(() =>
      layeredSets([{ name: "user", file: "u.toml", values: { "a b": { c: 1 } } }]),
    ).toThrow(/u\.toml: a b\.c: found this key/);
  });
});
