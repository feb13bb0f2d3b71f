import { describe, expect, it } from "vitest";
import { cronJobName } from "../../src/scheduler/export/kubernetes-names.js";
import { toKubernetesSchedule } from "../../src/scheduler/export/kubernetes-schedule.js";

const translate = (cron: string) => {
  const r = toKubernetesSchedule(cron);
  return r.kind === "ok" ? r.value : `refused: ${r.reason}`;
};

describe("toKubernetesSchedule", () => {
  it.each([
    ["*/15 * * * *", "*/15 * * * *"],
    ["0 2 * * *", "0 2 * * *"],
    ["@hourly", "@hourly"],
    ["@Daily", "@daily"],
    ["0 0 3 * * *", "0 3 * * *"],
    ["30 9 * * MON-FRI", "30 9 * * 1-5"],
    ["0 8 * * 5-7", "0 8 * * 0,5-6"],
    ["0 9 1 * 1", "0 9 1 * 1"],
    ["0 9 ? * 1", "0 9 * * 1"],
    ["0 0 * * +1", "0 0 * * 1"],
    ["0 0 */2 * *", "0 0 */2 * *"],
    ["0 0 1 jan,jul *", "0 0 1 jan,jul *"],
  ])("%s → %s", (cron, expected) => {
    expect(translate(cron)).toBe(expected);
  });

  it.each([
    [
      "*/30 * * * * *",
      'refused: Kubernetes schedules have no seconds field, so the seconds field "*/30" must be 0',
    ],
    [
      "0 0 */2 * 1-5",
      'refused: day-of-month "*/2" and day-of-week "1-5" must both match here (a field starting with "*" or a "+" counts as "both", as in Vixie cron), but Kubernetes fires on days matching either one; split it into schedules Kubernetes reads the same way',
    ],
    [
      "0 0 L * *",
      'refused: day-of-month "L" uses "L" (last day of the month), which a Kubernetes CronJob schedule cannot express',
    ],
    [
      "0 0 * * 5#2",
      'refused: day-of-week "5#2" uses "#" (nth weekday of the month), which a Kubernetes CronJob schedule cannot express',
    ],
  ])("refuses %s", (cron, expected) => {
    expect(translate(cron)).toBe(expected);
  });
});

describe("cronJobName", () => {
  it("keeps valid names and shortens long ones with a hash", () => {
    expect(cronJobName("nightly-fix")).toEqual({ name: "nightly-fix", note: undefined });
    const long = `${"a".repeat(40)}-${"b".repeat(20)}`;
    const short = cronJobName(long);
    expect(short.name).toMatch(/^a{40}-b{4}-[0-9a-f]{6}$/);
    expect(short.name.length).toBeLessThanOrEqual(52);
    expect(short.note).toBe(
      `schedule "${long}" has 61 characters and a CronJob name at most 52: its CronJob is named "${short.name}"`,
    );
    expect(cronJobName(`${long}x`).name).not.toBe(short.name);
  });

  it("renames a name ending with a dash", () => {
    expect(cronJobName("trailing-").name).toMatch(/^trailing-[0-9a-f]{6}$/);
  });
});
