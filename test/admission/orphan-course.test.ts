// An orphaned claim's slot runs as a catch-up run, or is skipped with a reason, by `catch_up`.
import { describe, expect, it } from "vitest";
import { orphanCourse } from "../../src/scheduler/admission/orphan-course.js";

const slot = new Date("2026-11-29T06:00:00.000Z");
const now = new Date("2026-11-29T06:10:00.000Z");
const HOUR = 3_600_000;

describe("the course of an orphaned claim's slot", () => {
  it("runs within catch_up_window under catch_up = all, and latest when no later slot ran", () => {
    expect(orphanCourse({ mode: "all", windowMs: HOUR }, slot, now, undefined)).toEqual({
      kind: "run",
    });
    const later = new Date("2026-11-29T06:05:00.000Z");
    expect(orphanCourse({ mode: "all", windowMs: HOUR }, slot, now, later).kind).toBe("run");
    expect(orphanCourse({ mode: "latest", windowMs: HOUR }, slot, now, slot).kind).toBe("run");
    expect(orphanCourse({ mode: "latest", windowMs: HOUR }, slot, now, later)).toMatchObject({
      kind: "skip",
      cause: "catch_up",
      detail: expect.stringContaining('catch_up = "latest"'),
    });
  });

  it("is skipped with a reason under catch_up = none, outside the window, or without its schedule", () => {
    expect(orphanCourse({ mode: "none", windowMs: HOUR }, slot, now, undefined)).toEqual({
      kind: "skip",
      cause: "catch_up",
      detail: 'its claimer died before recording its run; catch_up = "none"',
    });
    expect(orphanCourse({ mode: "all", windowMs: 60_000 }, slot, now, undefined)).toMatchObject({
      kind: "skip",
      cause: "catch_up",
      detail: expect.stringContaining("catch_up_window"),
    });
    expect(orphanCourse(undefined, slot, now, undefined)).toMatchObject({
      kind: "skip",
      cause: "config_error",
    });
  });
});
