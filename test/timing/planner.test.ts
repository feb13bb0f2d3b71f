import { describe, expect, it } from "vitest";
import { CronTable, compileCron, cronProblem } from "../../src/scheduler/timing/cron.js";
import { fireTimeOf } from "../../src/scheduler/timing/jitter.js";
import {
  CATCH_UP_CAP,
  catchUpSlots,
  nextFireTime,
  type PlanSpec,
  slotKey,
  slotsBetween,
} from "../../src/scheduler/timing/planner.js";

const spec = (cron: string, timezone = "UTC", jitterMs = 0): PlanSpec => ({
  name: "s",
  cron,
  timezone,
  jitterMs,
});

/** The first `n` fire times after `from`, as ISO strings. */
function fires(cron: string, timezone: string, from: string, n: number): string[] {
  const out: string[] = [];
  let at: Date | undefined = new Date(from);
  for (let i = 0; i < n; i++) {
    at = nextFireTime(spec(cron, timezone), at);
    if (at === undefined) break;
    out.push(at.toISOString());
  }
  return out;
}

describe("nextFireTime across DST in Europe/Berlin", () => {
  it("fires a daily slot inside the spring-forward gap once, when the gap ends", () => {
    // 2026-03-29 02:00 CET jumps to 03:00 CEST (01:00Z); 02:30 never happens.
    expect(fires("30 2 * * *", "Europe/Berlin", "2026-03-28T12:00:00Z", 3)).toEqual([
      "2026-03-29T01:00:00.000Z",
      "2026-03-30T00:30:00.000Z",
      "2026-03-31T00:30:00.000Z",
    ]);
  });

  it("merges half-hourly gap slots into one fire at the gap end", () => {
    expect(fires("*/30 * * * *", "Europe/Berlin", "2026-03-28T23:50:00Z", 5)).toEqual([
      "2026-03-29T00:00:00.000Z", // 01:00 CET
      "2026-03-29T00:30:00.000Z", // 01:30 CET
      "2026-03-29T01:00:00.000Z", // 02:00 and 02:30 (gap) with 03:00 CEST
      "2026-03-29T01:30:00.000Z", // 03:30 CEST
      "2026-03-29T02:00:00.000Z",
    ]);
  });

  it("fires an hourly :30 slot in the gap at the gap end and keeps 03:30", () => {
    expect(fires("30 * * * *", "Europe/Berlin", "2026-03-29T00:00:00Z", 3)).toEqual([
      "2026-03-29T00:30:00.000Z",
      "2026-03-29T01:00:00.000Z",
      "2026-03-29T01:30:00.000Z",
    ]);
  });

  it("fires a daily slot in the repeated fall-back hour once, at its first occurrence", () => {
    // 2026-10-25 03:00 CEST falls back to 02:00 CET (01:00Z); 02:30 happens twice.
    expect(fires("30 2 * * *", "Europe/Berlin", "2026-10-24T12:00:00Z", 3)).toEqual([
      "2026-10-25T00:30:00.000Z",
      "2026-10-26T01:30:00.000Z",
      "2026-10-27T01:30:00.000Z",
    ]);
  });

  it("runs wildcard jobs by the wall clock through the repeated hour (cron(8))", () => {
    expect(fires("*/30 * * * *", "Europe/Berlin", "2026-10-24T23:50:00Z", 6)).toEqual([
      "2026-10-25T00:00:00.000Z", // 02:00 CEST
      "2026-10-25T00:30:00.000Z", // 02:30 CEST
      "2026-10-25T01:00:00.000Z", // 02:00 CET, the clock's second pass
      "2026-10-25T01:30:00.000Z", // 02:30 CET
      "2026-10-25T02:00:00.000Z", // 03:00 CET
      "2026-10-25T02:30:00.000Z",
    ]);
    // The hourly job gets its 02:00 CET run; the quarter-hour job has no 75-minute hole.
    expect(fires("0 * * * *", "Europe/Berlin", "2026-10-24T23:30:00Z", 3)).toEqual([
      "2026-10-25T00:00:00.000Z",
      "2026-10-25T01:00:00.000Z",
      "2026-10-25T02:00:00.000Z",
    ]);
    expect(fires("@hourly", "Europe/Berlin", "2026-10-25T00:30:00Z", 1)).toEqual([
      "2026-10-25T01:00:00.000Z",
    ]);
    expect(fires("*/15 * * * *", "Europe/Berlin", "2026-10-25T00:40:00Z", 6)).toEqual([
      "2026-10-25T00:45:00.000Z",
      "2026-10-25T01:00:00.000Z",
      "2026-10-25T01:15:00.000Z",
      "2026-10-25T01:30:00.000Z",
      "2026-10-25T01:45:00.000Z",
      "2026-10-25T02:00:00.000Z",
    ]);
  });

  it("asked from inside the second pass: a fixed job waits for tomorrow, a wildcard job goes on", () => {
    // 01:10Z is 02:10 CET, the second time the clock shows 02:10.
    expect(fires("30 2 * * *", "Europe/Berlin", "2026-10-25T01:10:00Z", 1)).toEqual([
      "2026-10-26T01:30:00.000Z",
    ]);
    expect(fires("* * * * * *", "Europe/Berlin", "2026-10-25T01:10:00Z", 2)).toEqual([
      "2026-10-25T01:10:01.000Z",
      "2026-10-25T01:10:02.000Z",
    ]);
  });
});

describe("nextFireTime across DST in America/New_York", () => {
  it("fires 02:30 on the spring-forward day at 03:00 EDT", () => {
    expect(fires("30 2 * * *", "America/New_York", "2026-03-07T12:00:00Z", 2)).toEqual([
      "2026-03-08T07:00:00.000Z",
      "2026-03-09T06:30:00.000Z",
    ]);
  });

  it("fires 01:30 on the fall-back day once (EDT)", () => {
    expect(fires("30 1 * * *", "America/New_York", "2026-10-31T12:00:00Z", 2)).toEqual([
      "2026-11-01T05:30:00.000Z",
      "2026-11-02T06:30:00.000Z",
    ]);
  });

  it("fires hourly slots in both passes of the repeated hour", () => {
    expect(fires("0 * * * *", "America/New_York", "2026-11-01T03:30:00Z", 5)).toEqual([
      "2026-11-01T04:00:00.000Z", // 00:00 EDT
      "2026-11-01T05:00:00.000Z", // 01:00 EDT
      "2026-11-01T06:00:00.000Z", // 01:00 EST
      "2026-11-01T07:00:00.000Z", // 02:00 EST
      "2026-11-01T08:00:00.000Z",
    ]);
    // A star in the minute field alone makes a wildcard job too.
    expect(fires("*/30 1 * * *", "America/New_York", "2026-11-01T04:00:00Z", 5)).toEqual([
      "2026-11-01T05:00:00.000Z",
      "2026-11-01T05:30:00.000Z",
      "2026-11-01T06:00:00.000Z",
      "2026-11-01T06:30:00.000Z",
      "2026-11-02T06:00:00.000Z",
    ]);
  });

  it("answers a pattern asked in turn from other instants and zones as if asked alone", () => {
    // nextFireTime keeps a few answers per pattern: alternating questions must never get
    // another question's answer.
    const at = (iso: string) => new Date(iso);
    const questions: [string, string][] = [
      ["UTC", "2026-03-01T00:00:00Z"],
      ["Europe/Berlin", "2026-03-01T00:00:00Z"],
      ["UTC", "2026-03-02T07:00:00Z"],
      ["America/New_York", "2026-03-01T00:00:00Z"],
      ["Asia/Kolkata", "2026-03-01T00:00:00Z"],
      ["Australia/Lord_Howe", "2026-03-01T00:00:00Z"],
    ];
    const expected = questions.map(([zone, from]) =>
      nextFireTime(spec("30 6 * * *", zone), at(from))?.toISOString(),
    );
    expect(new Set(expected).size).toBe(questions.length);
    for (let round = 0; round < 3; round++)
      questions.forEach(([zone, from], i) => {
        const fresh = nextFireTime({ ...spec("30 6 * * *", zone) }, at(from));
        expect(fresh?.toISOString(), `${zone} ${from}`).toBe(expected[i]);
      });
    expect(expected[0]).toBe("2026-03-01T06:30:00.000Z");
    expect(expected[1]).toBe("2026-03-01T05:30:00.000Z"); // 06:30 CET
  });

  it("tells wildcard jobs the same whether a pattern is spaced plainly or not", () => {
    // Plain single-spaced patterns take a shortcut; the general reading is the reference.
    const cases: [string, boolean][] = [
      ["0 * * * *", true],
      ["*/30 1 * * *", true],
      ["30 1 * * *", false],
      ["0 */2 * * *", true],
      ["0 0 * 1 * *", true], // six fields: seconds first, `*` hour
      ["*/5 0 1 * * *", false],
      ["0 1-5 * * *", false],
    ];
    for (const [text, wildcard] of cases) {
      expect(compileCron(text).wildcard, text).toBe(wildcard);
      expect(compileCron(` ${text.replaceAll(" ", "\t ")} `).wildcard, text).toBe(wildcard);
    }
  });

  it("fires hourly slots on the spring-forward day, 02:00 merged into 03:00", () => {
    expect(fires("0 * * * *", "America/New_York", "2026-03-08T05:30:00Z", 3)).toEqual([
      "2026-03-08T06:00:00.000Z", // 01:00 EST
      "2026-03-08T07:00:00.000Z", // 03:00 EDT
      "2026-03-08T08:00:00.000Z",
    ]);
  });
});

describe("nextFireTime across DST in Australia/Lord_Howe (a 30-minute shift)", () => {
  // 2026-04-05 02:00 LHDT (+11) falls back to 01:30 LHST (+10:30) at 15:00Z on April 4.
  it("repeats the half hour for wildcard jobs and not for fixed ones", () => {
    expect(fires("*/15 * * * *", "Australia/Lord_Howe", "2026-04-04T14:20:00Z", 5)).toEqual([
      "2026-04-04T14:30:00.000Z", // 01:30 LHDT
      "2026-04-04T14:45:00.000Z", // 01:45 LHDT
      "2026-04-04T15:00:00.000Z", // 01:30 LHST
      "2026-04-04T15:15:00.000Z", // 01:45 LHST
      "2026-04-04T15:30:00.000Z", // 02:00 LHST
    ]);
    expect(fires("45 1 * * *", "Australia/Lord_Howe", "2026-04-04T12:00:00Z", 2)).toEqual([
      "2026-04-04T14:45:00.000Z",
      "2026-04-05T15:15:00.000Z",
    ]);
  });
});

describe("nextFireTime where the clock goes back at midnight", () => {
  it("America/Havana: 01:00 CDT back to 00:00 CST", () => {
    expect(fires("0 0 * * *", "America/Havana", "2026-10-31T12:00:00Z", 2)).toEqual([
      "2026-11-01T04:00:00.000Z", // 00:00 CDT; 00:00 CST an hour later is a repeat
      "2026-11-02T05:00:00.000Z",
    ]);
    expect(fires("*/20 0 * * *", "America/Havana", "2026-11-01T03:50:00Z", 7)).toEqual([
      "2026-11-01T04:00:00.000Z",
      "2026-11-01T04:20:00.000Z",
      "2026-11-01T04:40:00.000Z",
      "2026-11-01T05:00:00.000Z",
      "2026-11-01T05:20:00.000Z",
      "2026-11-01T05:40:00.000Z",
      "2026-11-02T05:00:00.000Z",
    ]);
  });

  it("Asia/Beirut: 00:00 EEST back to 23:00 EET on the day before", () => {
    expect(fires("0 * * * *", "Asia/Beirut", "2026-10-24T19:30:00Z", 3)).toEqual([
      "2026-10-24T20:00:00.000Z", // 23:00 EEST
      "2026-10-24T21:00:00.000Z", // 23:00 EET
      "2026-10-24T22:00:00.000Z", // 00:00 EET, Sunday
    ]);
    expect(fires("30 23 * * *", "Asia/Beirut", "2026-10-24T12:00:00Z", 2)).toEqual([
      "2026-10-24T20:30:00.000Z",
      "2026-10-25T21:30:00.000Z",
    ]);
  });
});

describe("nextFireTime patterns", () => {
  it("skips months without a 31st", () => {
    expect(fires("0 0 31 * *", "UTC", "2026-01-01T00:00:00Z", 4)).toEqual([
      "2026-01-31T00:00:00.000Z",
      "2026-03-31T00:00:00.000Z",
      "2026-05-31T00:00:00.000Z",
      "2026-07-31T00:00:00.000Z",
    ]);
  });

  it("supports L for the last day of the month, leap years included", () => {
    expect(fires("0 0 L * *", "UTC", "2028-01-15T00:00:00Z", 3)).toEqual([
      "2028-01-31T00:00:00.000Z",
      "2028-02-29T00:00:00.000Z",
      "2028-03-31T00:00:00.000Z",
    ]);
  });

  it("evaluates month ends in the schedule's zone", () => {
    expect(fires("0 0 31 * *", "Europe/Berlin", "2026-01-01T00:00:00Z", 1)).toEqual([
      "2026-01-30T23:00:00.000Z",
    ]);
  });

  it("understands nicknames", () => {
    const from = "2026-01-01T00:30:00Z"; // a Thursday
    expect(fires("@hourly", "UTC", from, 1)).toEqual(["2026-01-01T01:00:00.000Z"]);
    expect(fires("@daily", "UTC", from, 1)).toEqual(["2026-01-02T00:00:00.000Z"]);
    expect(fires("@midnight", "Europe/Berlin", from, 1)).toEqual(["2026-01-01T23:00:00.000Z"]);
    expect(fires("@weekly", "UTC", from, 1)).toEqual(["2026-01-04T00:00:00.000Z"]);
    expect(fires("@monthly", "UTC", from, 1)).toEqual(["2026-02-01T00:00:00.000Z"]);
    expect(fires("@yearly", "UTC", from, 1)).toEqual(["2027-01-01T00:00:00.000Z"]);
    expect(fires("@annually", "UTC", from, 1)).toEqual(["2027-01-01T00:00:00.000Z"]);
  });

  it("reads 6 fields as leading seconds", () => {
    expect(fires("*/20 * * * * *", "UTC", "2026-01-01T00:00:00Z", 3)).toEqual([
      "2026-01-01T00:00:20.000Z",
      "2026-01-01T00:00:40.000Z",
      "2026-01-01T00:01:00.000Z",
    ]);
    expect(fires("15 30 2 * * *", "Europe/Berlin", "2026-03-28T12:00:00Z", 2)).toEqual([
      "2026-03-29T01:00:00.000Z",
      "2026-03-30T00:30:15.000Z",
    ]);
  });

  it("ORs day-of-month and day-of-week when both are restricted (standard cron)", () => {
    // Fridays, plus the 13th (a Tuesday in January 2026).
    expect(fires("0 0 13 * 5", "UTC", "2026-01-01T00:00:00Z", 4)).toEqual([
      "2026-01-02T00:00:00.000Z",
      "2026-01-09T00:00:00.000Z",
      "2026-01-13T00:00:00.000Z",
      "2026-01-16T00:00:00.000Z",
    ]);
  });

  it("ANDs them when one field starts with * (Vixie), and treats ? as *", () => {
    // Mondays that fall on odd days of the month.
    expect(fires("0 0 */2 * 1", "UTC", "2026-01-01T00:00:00Z", 3)).toEqual([
      "2026-01-05T00:00:00.000Z",
      "2026-01-19T00:00:00.000Z",
      "2026-02-09T00:00:00.000Z",
    ]);
    expect(fires("0 0 ? * 1", "UTC", "2026-01-01T00:00:00Z", 1)).toEqual([
      "2026-01-05T00:00:00.000Z",
    ]);
  });

  it("returns undefined when the pattern never fires again", () => {
    expect(nextFireTime(spec("0 0 1 1 *"), new Date("9999-06-01T00:00:00Z"))).toBeUndefined();
  });

  it("explains bad patterns", () => {
    expect(cronProblem("61 * * * *")).toBe("Invalid value for minute: 61");
    expect(cronProblem("* * * *")).toMatch(/exactly five, six, or seven/);
    expect(cronProblem("* * * * * * *")).toMatch(/requires exactly 5 or 6 parts/);
    expect(cronProblem("0 0 30 2 *")).toBe("it never matches a date (check day and month)");
    expect(cronProblem("@fortnightly")).toBe(
      "unknown nickname; use one of @yearly, @annually, @monthly, @weekly, @daily, @midnight, @hourly",
    );
    expect(cronProblem("0 2 * * *")).toBeUndefined();
  });
});

describe("slotsBetween and slotKey", () => {
  it("lists slots in (from, to], oldest first, up to the limit", () => {
    const s = spec("0 * * * *");
    const from = new Date("2026-01-01T00:00:00Z");
    const to = new Date("2026-01-01T03:00:00Z");
    expect(slotsBetween(s, from, to, 10).map((d) => d.toISOString())).toEqual([
      "2026-01-01T01:00:00.000Z",
      "2026-01-01T02:00:00.000Z",
      "2026-01-01T03:00:00.000Z",
    ]);
    expect(slotsBetween(s, from, to, 2)).toHaveLength(2);
  });

  it("keys a slot by schedule and UTC slot time", () => {
    expect(slotKey("nightly-fix", new Date("2026-03-29T01:00:00Z"))).toBe(
      "nightly-fix@2026-03-29T01:00:00.000Z",
    );
  });
});

describe("catchUpSlots", () => {
  const hourly = spec("0 * * * *");
  const now = new Date("2026-01-01T10:30:00Z");
  const last = new Date("2026-01-01T05:00:00Z");
  const iso = (r: { slots: Date[] }) => r.slots.map((d) => d.toISOString());

  it("none launches nothing, and a schedule never seen before missed nothing", () => {
    expect(catchUpSlots(hourly, last, now, { mode: "none", windowMs: 6 * 3_600_000 })).toEqual({
      slots: [],
      capped: false,
    });
    expect(
      catchUpSlots(hourly, undefined, now, { mode: "all", windowMs: 3_600_000 }).slots,
    ).toEqual([]);
  });

  it("latest launches only the newest missed slot", () => {
    const r = catchUpSlots(hourly, last, now, { mode: "latest", windowMs: 6 * 3_600_000 });
    expect(iso(r)).toEqual(["2026-01-01T10:00:00.000Z"]);
  });

  it("all launches every missed slot inside the window, oldest first", () => {
    const r = catchUpSlots(hourly, last, now, { mode: "all", windowMs: 3 * 3_600_000 });
    expect(iso(r)).toEqual([
      "2026-01-01T08:00:00.000Z",
      "2026-01-01T09:00:00.000Z",
      "2026-01-01T10:00:00.000Z",
    ]);
    expect(r.capped).toBe(false);
  });

  it("latest finds nothing when the newest slot is older than the window", () => {
    const daily = spec("0 2 * * *");
    const r = catchUpSlots(daily, new Date("2025-12-31T02:00:00Z"), now, {
      mode: "latest",
      windowMs: 6 * 3_600_000,
    });
    expect(r.slots).toEqual([]);
  });

  it("caps all at the newest 100 slots and says so", () => {
    const everySecond = spec("* * * * * *");
    const r = catchUpSlots(everySecond, new Date("2026-01-01T09:00:00Z"), now, {
      mode: "all",
      windowMs: 6 * 3_600_000,
    });
    expect(r.slots).toHaveLength(CATCH_UP_CAP);
    expect(r.capped).toBe(true);
    expect(r.slots.at(-1)!.toISOString()).toBe("2026-01-01T10:30:00.000Z");
  });

  it("leaves slots whose jittered fire time is still ahead to the fire queue", () => {
    const jittered = { ...spec("*/10 * * * *"), jitterMs: 9 * 60_000 };
    const r = catchUpSlots(jittered, last, now, { mode: "all", windowMs: 3_600_000 });
    // Offsets hashed from "s@<slot>": 09:30 +6m40s … 10:20 +6m31s (fired 10:26:31, caught
    // up); 10:30 +3m23s fires at 10:33:23, after now: the fire queue's, not catch-up's.
    expect(iso(r)).toEqual([
      "2026-01-01T09:30:00.000Z",
      "2026-01-01T09:40:00.000Z",
      "2026-01-01T09:50:00.000Z",
      "2026-01-01T10:00:00.000Z",
      "2026-01-01T10:10:00.000Z",
      "2026-01-01T10:20:00.000Z",
    ]);
    expect(fireTimeOf(jittered, new Date("2026-01-01T10:20:00Z")).toISOString()).toBe(
      "2026-01-01T10:26:31.098Z",
    );
    expect(fireTimeOf(jittered, now).toISOString()).toBe("2026-01-01T10:33:23.073Z");
    expect(nextFireTime(jittered, new Date(now.getTime() - 1))).toEqual(now);
  });
});

describe("one cron engine", () => {
  it("compiles the usual syntax to tables and leaves L, W and # to croner", () => {
    expect(compileCron("5 4 * * *")).toBeInstanceOf(CronTable);
    expect(compileCron("*/2,5 * * * *")).toBeInstanceOf(CronTable);
    expect(compileCron("0 0 L * *")).not.toBeInstanceOf(CronTable);
    expect(compileCron("0 0 L * *").fields()).toBeUndefined();
    expect(compileCron("0 0 L * *").nextRun(new Date("2026-02-03T00:00:00Z"))?.toISOString()).toBe(
      "2026-02-28T00:00:00.000Z",
    );
  });

  it("gives the exporters each field's values and the Vixie day rule", () => {
    expect(compileCron("@weekly").fields()).toEqual({
      seconds: undefined,
      minutes: [0],
      hours: [0],
      days: Array.from({ length: 31 }, (_, i) => i + 1),
      months: Array.from({ length: 12 }, (_, i) => i + 1),
      weekdays: [0],
      text: ["0", "0", "*", "*", "0"],
      dayMatch: "and",
    });
    const f = compileCron("30 */20 9-17 1,15,31 * MON-FRI,7").fields();
    expect(f?.seconds).toEqual([30]);
    expect(f?.minutes).toEqual([0, 20, 40]);
    expect(f?.days).toEqual([1, 15, 31]);
    expect(f?.weekdays).toEqual([0, 1, 2, 3, 4, 5]);
    expect(f?.dayMatch).toBe("or");
    expect(compileCron("0 0 ? * 1").fields()?.dayMatch).toBe("and"); // `?` reads as `*`
    expect(compileCron("0 0 1,15 * 1").fields()?.dayMatch).toBe("or");
    expect(compileCron("0 0 */2 * 1").fields()?.dayMatch).toBe("and");
  });
});
