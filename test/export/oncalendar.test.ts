import { describe, expect, it } from "vitest";
import { toOnCalendar } from "../../src/scheduler/export/oncalendar.js";
import { nextFireTime } from "../../src/scheduler/timing/planner.js";
import { calendarInstants, skipSystemd } from "./systemd-analyze.js";

const translate = (cron: string, tz = "UTC") => {
  const r = toOnCalendar(cron, tz);
  return r.kind === "ok" ? r.value : `refused: ${r.reason}`;
};

describe("toOnCalendar", () => {
  it.each([
    ["*/15 * * * *", "*-*-* *:00/15:00 UTC"],
    ["0 2 * * *", "*-*-* 02:00:00 UTC"],
    ["30 9 * * 1-5", "Mon..Fri *-*-* 09:30:00 UTC"],
    ["30 9 * * MON-FRI", "Mon..Fri *-*-* 09:30:00 UTC"],
    ["0 12 * * 0,6", "Sat,Sun *-*-* 12:00:00 UTC"],
    ["0 8 * * 5-7", "Fri..Sun *-*-* 08:00:00 UTC"],
    ["0 9-17/2 * * *", "*-*-* 09..17/2:00:00 UTC"],
    ["5,10 0 1,15 * *", "*-*-01,15 00:05,10:00 UTC"],
    ["0 0 */2 * 1-5", "Mon..Fri *-*-01/2 00:00:00 UTC"],
    ["0 0 1 jan-mar,oct *", "*-01..03,10-01 00:00:00 UTC"],
    ["0 0 1 */3 *", "*-01/3-01 00:00:00 UTC"],
    ["0 9 1-31 * 1", "*-*-* 09:00:00 UTC"],
    ["0 0 ? * +1", "Mon *-*-* 00:00:00 UTC"],
    ["@hourly", "*-*-* *:00:00 UTC"],
    ["@daily", "*-*-* 00:00:00 UTC"],
    ["@weekly", "Sun *-*-* 00:00:00 UTC"],
    ["@monthly", "*-*-01 00:00:00 UTC"],
    ["@yearly", "*-01-01 00:00:00 UTC"],
    ["*/10 * * * * *", "*-*-* *:*:00/10 UTC"],
    ["30 0 9 * * 1", "Mon *-*-* 09:00:30 UTC"],
    ["0 2 L * *", "*-*~01 02:00:00 UTC"],
    ["30 23 L 2 ?", "*-02~01 23:30:00 UTC"],
  ])("%s → %s", (cron, expected) => {
    expect(translate(cron)).toBe(expected);
  });

  it("names the time zone", () => {
    expect(translate("0 2 * * *", "Europe/Berlin")).toBe("*-*-* 02:00:00 Europe/Berlin");
  });

  it.each([
    [
      "0 9 1 * 1",
      'refused: day-of-month "1" and day-of-week "1" are both restricted, so cron fires on days matching either one, while OnCalendar fires only on days matching both; split it into two schedules, one restricting each field',
    ],
    [
      "0 0 L * 1-5",
      'refused: day-of-month "L" with day-of-week "1-5" fires on either in cron, which systemd OnCalendar cannot express; split it into two schedules',
    ],
    [
      "0 0 L-2 * *",
      'refused: day-of-month "L-2" uses "L" (last day of the month), which systemd OnCalendar cannot express',
    ],
    [
      "0 0 15W * *",
      'refused: day-of-month "15W" uses "W" (nearest weekday), which systemd OnCalendar cannot express',
    ],
    [
      "0 0 * * 5#2",
      'refused: day-of-week "5#2" uses "#" (nth weekday of the month), which systemd OnCalendar cannot express',
    ],
    [
      "0 0 * * 5L",
      'refused: day-of-week "5L" uses "L" (last weekday of the month), which systemd OnCalendar cannot express',
    ],
  ])("refuses %s", (cron, expected) => {
    expect(translate(cron)).toBe(expected);
  });
});

/** The planner's next `n` slots strictly after `base`. */
function plannerInstants(cron: string, timezone: string, base: Date, n: number): Date[] {
  const out: Date[] = [];
  let at = nextFireTime({ name: "s", cron, timezone, jitterMs: 0 }, base);
  while (at !== undefined && out.length < n) {
    out.push(at);
    at = nextFireTime({ name: "s", cron, timezone, jitterMs: 0 }, at);
  }
  return out;
}

// Windows include fall-back DST changes (where systemd and the planner agree: jobs at a fixed
// time) and month ends.
const AGREEMENT: [cron: string, timezone: string, base: string, n: number][] = [
  ["*/15 * * * *", "UTC", "2025-01-31T23:20:00Z", 12],
  ["0 2 * * *", "Europe/Berlin", "2025-10-24T12:00:00Z", 5],
  ["@hourly", "Europe/Berlin", "2025-10-25T10:10:00Z", 6],
  ["*/20 1-3 * * *", "Europe/Berlin", "2025-10-24T20:00:00Z", 12],
  ["30 9 * * 1-5", "America/New_York", "2025-03-06T00:00:00Z", 8],
  ["0 */6 * * *", "America/New_York", "2025-11-01T00:00:00Z", 10],
  ["30 1 * * *", "America/New_York", "2025-10-31T00:00:00Z", 5],
  ["0 0 1,15 * *", "Europe/Berlin", "2025-01-01T00:00:00Z", 8],
  ["0 0 */2 * 1-5", "America/New_York", "2025-02-01T00:00:00Z", 8],
  ["0 8 * * 5-7", "Europe/Berlin", "2025-10-20T00:00:00Z", 6],
  ["0 9 1-31 * 1", "UTC", "2025-01-30T00:00:00Z", 4],
  ["0 12 * * 0,6", "Asia/Tokyo", "2025-06-01T00:00:00Z", 6],
  ["0 0 1 */3 *", "Australia/Sydney", "2025-01-01T00:00:00Z", 5],
  ["15 10 * jan-mar,oct mon", "Europe/Berlin", "2025-03-20T00:00:00Z", 5],
  ["@weekly", "America/New_York", "2025-10-30T00:00:00Z", 4],
  ["*/10 * * * * *", "UTC", "2025-06-30T23:59:30Z", 8],
  ["30 0 9 * * 1", "Europe/Berlin", "2025-10-20T00:00:00Z", 4],
  // The last day of the month: OnCalendar's "~01".
  ["0 2 L * *", "Europe/Berlin", "2025-01-15T00:00:00Z", 6],
  ["30 23 L 2 *", "UTC", "2023-01-01T00:00:00Z", 3],
];

describe.skipIf(skipSystemd)("systemd-analyze calendar agrees with the planner", () => {
  it.each(AGREEMENT)("%s in %s from %s", async (cron, timezone, base, n) => {
    const spec = translate(cron, timezone);
    const theirs = await calendarInstants(spec, new Date(base), n);
    const ours = plannerInstants(cron, timezone, new Date(base), n);
    expect(ours).toHaveLength(n);
    expect(theirs.map((d) => d.toISOString())).toEqual(ours.map((d) => d.toISOString()));
  });

  it("differs at fall-back for wildcard jobs: systemd runs a repeated wall time once", async () => {
    const base = new Date("2025-10-26T00:30:00Z"); // 02:30 CEST, first pass
    const theirs = await calendarInstants(translate("@hourly", "Europe/Berlin"), base, 2);
    const ours = plannerInstants("@hourly", "Europe/Berlin", base, 2);
    expect(theirs.map((d) => d.toISOString())).toEqual([
      "2025-10-26T02:00:00.000Z",
      "2025-10-26T03:00:00.000Z",
    ]);
    expect(ours.map((d) => d.toISOString())).toEqual([
      "2025-10-26T01:00:00.000Z", // 02:00 CET, cron(8)'s second pass
      "2025-10-26T02:00:00.000Z",
    ]);
  });

  it("differs at spring-forward: systemd skips the gap, the planner fires at its end", async () => {
    const base = new Date("2025-03-29T12:00:00Z");
    const spec = translate("30 2 * * *", "Europe/Berlin");
    const theirs = await calendarInstants(spec, base, 2);
    const ours = plannerInstants("30 2 * * *", "Europe/Berlin", base, 2);
    expect(theirs.map((d) => d.toISOString())).toEqual([
      "2025-03-31T00:30:00.000Z",
      "2025-04-01T00:30:00.000Z",
    ]);
    expect(ours.map((d) => d.toISOString())).toEqual([
      "2025-03-30T01:00:00.000Z",
      "2025-03-31T00:30:00.000Z",
    ]);
  });
});
