import { describe, expect, it } from "vitest";
import {
  instantsOfWall,
  isValidTimeZone,
  wallClockOf,
  zoneOffset,
} from "../../src/scheduler/timing/zone-clock.js";

const wall = (iso: string) => new Date(`${iso}Z`).getTime();
const t = (iso: string) => new Date(iso).getTime();

describe("zone clock", () => {
  it("knows IANA zones and rejects others", () => {
    expect(isValidTimeZone("Europe/Berlin")).toBe(true);
    expect(isValidTimeZone("UTC")).toBe(true);
    expect(isValidTimeZone("Mars/Base")).toBe(false);
    expect(isValidTimeZone("")).toBe(false);
  });

  it("computes offsets, including half- and quarter-hour zones", () => {
    expect(zoneOffset(t("2026-01-15T12:00:00Z"), "Europe/Berlin")).toBe(3_600_000);
    expect(zoneOffset(t("2026-07-15T12:00:00Z"), "Europe/Berlin")).toBe(7_200_000);
    expect(zoneOffset(t("2026-01-15T12:00:00Z"), "America/New_York")).toBe(-18_000_000);
    expect(zoneOffset(t("2026-01-15T12:00:00Z"), "Asia/Kathmandu")).toBe(20_700_000);
    expect(wallClockOf(t("2026-01-15T12:00:00.250Z"), "Asia/Kolkata")).toBe(
      wall("2026-01-15T17:30:00.250"),
    );
  });

  it("maps wall times to instants: exact, spring-forward gap, fall-back overlap", () => {
    expect(instantsOfWall(wall("2026-03-29T01:30:00"), "Europe/Berlin")).toEqual({
      kind: "exact",
      at: t("2026-03-29T00:30:00Z"),
    });
    expect(instantsOfWall(wall("2026-03-29T02:30:00"), "Europe/Berlin")).toEqual({
      kind: "gap",
      gapEnd: t("2026-03-29T01:00:00Z"),
    });
    expect(instantsOfWall(wall("2026-10-25T02:30:00"), "Europe/Berlin")).toEqual({
      kind: "overlap",
      earlier: t("2026-10-25T00:30:00Z"),
      later: t("2026-10-25T01:30:00Z"),
      transition: t("2026-10-25T01:00:00Z"),
    });
    // Lord Howe Island moves its clocks by 30 minutes.
    expect(instantsOfWall(wall("2026-10-04T02:15:00"), "Australia/Lord_Howe")).toEqual({
      kind: "gap",
      gapEnd: t("2026-10-03T15:30:00Z"),
    });
  });
});
