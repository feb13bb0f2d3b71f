import { describe, expect, it } from "vitest";
import { defaultConfig } from "../../src/config/config.js";
import { warmUpScheduleLoad } from "../../src/schedules/warm-up.js";

describe("warmUpScheduleLoad", () => {
  it("loads valid schedules of every kind, more than one TOML piece's worth, and plans them", () => {
    // 0 would mean a problem in the sample: the load's code would stay cold past the checks.
    // The folder does not exist: the warm-up reads nothing from disk.
    expect(warmUpScheduleLoad(defaultConfig("/nonexistent/cron"))).toBe(120);
  });
});
