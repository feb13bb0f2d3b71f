// The retry plan (`retry`), pure: which ends are retried, when the next attempt starts, and
// when the slot is left to the next one; the CLI words for "try again in 37s" as an instant.
import { describe, expect, it } from "vitest";
import { retryAfterInstant } from "../../src/journal/retry-after.js";
import { defaultConfig, parseConfigText } from "../../src/scheduler/config/config.js";
import type { RetryPolicy } from "../../src/scheduler/config/fields.js";
import type { RunSummary } from "../../src/scheduler/ledger/events.js";
import { attemptKey, slotOfKey } from "../../src/scheduler/ledger/slots.js";
import { retryClassOf, retryDecision } from "../../src/scheduler/retry/plan.js";
import {
  parseScheduleFile,
  scheduleDefaults,
} from "../../src/scheduler/schedules/schedule-file.js";
import { formatProblem } from "../../src/util/errors.js";

const policy: RetryPolicy = {
  attempts: 3,
  delayMs: 600_000,
  on: ["rate_limited", "transient", "failed"],
  page: "last",
};
const hourly = (slot: Date) => new Date(slot.getTime() + 3_600_000);
const run = (over: Partial<RunSummary>): RunSummary => ({
  runId: "nightly-20261127T0200-aaaaa",
  schedule: "nightly",
  slot: "2026-11-27T02:00:00.000Z",
  status: "failed",
  finishedAt: "2026-11-27T02:05:00.000Z",
  ...over,
});

describe("retryClassOf", () => {
  it("sorts a run's end into the classes retry.on names", () => {
    expect(retryClassOf(run({ stopReason: "rate_limited" }))).toBe("rate_limited");
    expect(retryClassOf(run({ stopReason: "transient_error" }))).toBe("transient");
    expect(retryClassOf(run({ stopReason: "max_iterations" }))).toBe("failed");
    // A hook's suspension waits for a human: another attempt would stop at the same hook.
    expect(retryClassOf(run({ stopReason: "suspended" }))).toBeUndefined();
    expect(retryClassOf(run({ exitCode: 1 }))).toBe("failed");
    expect(retryClassOf(run({ status: "timed_out", basis: "timeout" }))).toBe("timed_out");
    expect(retryClassOf(run({ status: "interrupted", signal: "SIGKILL" }))).toBe("transient");
    expect(retryClassOf(run({ status: "interrupted", basis: "lost" }))).toBe("transient");
  });

  it("never retries a completed run, a skipped slot or a run stopped on purpose", () => {
    expect(retryClassOf(run({ status: "completed" }))).toBeUndefined();
    expect(retryClassOf(run({ status: "skipped" }))).toBeUndefined();
    expect(retryClassOf(run({ status: "killed", killedBy: "operator" }))).toBeUndefined();
    expect(retryClassOf(run({ status: "failed", killedBy: "replace" }))).toBeUndefined();
    expect(retryClassOf(run({ status: "interrupted", stopReason: "interrupted" }))).toBeUndefined();
  });
});

describe("retryDecision", () => {
  it("retries a rate-limited run when its agent said, not after the delay", () => {
    const d = retryDecision(
      policy,
      run({ stopReason: "rate_limited", retryAfter: "2026-11-27T02:07:30.000Z" }),
      hourly,
    );
    expect(d).toEqual({
      kind: "retry",
      plan: {
        attempt: 2,
        parentRunId: "nightly-20261127T0200-aaaaa",
        after: "nightly-20261127T0200-aaaaa",
        at: Date.parse("2026-11-27T02:07:30.000Z"),
        cls: "rate_limited",
      },
    });
  });

  it("backs off from the delay, doubling it for each retry, and names the first run as parent", () => {
    const first = retryDecision(policy, run({}), hourly);
    expect(first.kind === "retry" && first.plan.at).toBe(Date.parse("2026-11-27T02:15:00.000Z"));
    const second = retryDecision(
      policy,
      run({
        runId: "nightly-20261127T0200-bbbbb",
        attempt: 2,
        parentRunId: "nightly-20261127T0200-aaaaa",
      }),
      hourly,
    );
    expect(second).toMatchObject({
      kind: "retry",
      plan: { attempt: 3, parentRunId: "nightly-20261127T0200-aaaaa", cls: "failed" },
    });
    expect(second.kind === "retry" && second.plan.at).toBe(Date.parse("2026-11-27T02:25:00.000Z"));
  });

  it("leaves the slot to the next one rather than retry at or past it", () => {
    const d = retryDecision(
      policy,
      run({ stopReason: "rate_limited", retryAfter: "2026-11-27T03:00:00.000Z" }),
      hourly,
    );
    expect(d.kind).toBe("none");
    expect(d.kind === "none" && d.why).toContain("next slot (2026-11-27T03:00:00.000Z)");
  });

  it("caps the wait an agent names at an hour, or the schedule's delay when longer", () => {
    const yearly = (slot: Date) => new Date(slot.getTime() + 365 * 86_400_000);
    const limited = run({ stopReason: "rate_limited", retryAfter: "2026-12-27T02:05:00.000Z" });
    const at = (p: RetryPolicy) => {
      const d = retryDecision(p, limited, yearly);
      return d.kind === "retry" ? new Date(d.plan.at).toISOString() : d.why;
    };
    expect(at(policy)).toBe("2026-11-27T03:05:00.000Z");
    expect(at({ ...policy, delayMs: 6 * 3_600_000 })).toBe("2026-11-27T08:05:00.000Z");
  });

  it("gives no retry, and never throws, for times it cannot read", () => {
    const huge = retryAfterInstant(
      "99999999999999999999 seconds",
      Date.parse("2026-11-27T02:05:00Z"),
    );
    expect(huge).toBeUndefined();
    expect(retryAfterInstant("37s", 1e23)).toBeUndefined();
    expect(
      retryAfterInstant("9999-01-01T00:00:00Z", Date.parse("2026-11-27T02:05:00Z")),
    ).toBeUndefined();
    const bad = retryDecision(policy, run({ finishedAt: "+999999-01-01T00:00:00Z" }), hourly);
    expect(bad.kind).toBe("none");
    const noSlot = retryDecision(policy, run({ slot: "garbage" }), hourly);
    expect(noSlot.kind).toBe("none");
  });

  it("stops at the last attempt, and retries only the classes retry.on names", () => {
    const last = retryDecision(policy, run({ attempt: 3 }), hourly);
    expect(last).toEqual({ kind: "none", why: "that was the last of 3 attempts" });
    const onlyLimits = { ...policy, on: ["rate_limited" as const] };
    expect(retryDecision(onlyLimits, run({ exitCode: 1 }), hourly)).toEqual({
      kind: "none",
      why: "retry.on does not name failed",
    });
    expect(retryDecision(undefined, run({}), hourly)).toEqual({ kind: "none" });
    // An attempt its daemon claimed and never started was no try: retried whatever `on` says.
    const never = run({ status: "interrupted", detail: "the daemon stopped right after claiming" });
    expect(retryDecision(onlyLimits, never, hourly).kind).toBe("retry");
    expect(retryDecision(onlyLimits, { ...never, startedAt: never.slot }, hourly).kind).toBe(
      "none",
    );
    expect(retryDecision(policy, run({ status: "completed" }), hourly)).toEqual({ kind: "none" });
  });
});

describe("retryAfterInstant", () => {
  const from = Date.parse("2026-11-27T02:00:00.000Z");
  it("reads the spans and times CLIs name", () => {
    expect(retryAfterInstant("37s", from)).toBe(from + 37_000);
    expect(retryAfterInstant("2 minutes", from)).toBe(from + 120_000);
    expect(retryAfterInstant("1 hour and 30 minutes.", from)).toBe(from + 5_400_000);
    expect(retryAfterInstant("1m30s", from)).toBe(from + 90_000);
    expect(retryAfterInstant("2026-11-27T05:00:00.000Z", from)).toBe(
      Date.parse("2026-11-27T05:00:00.000Z"),
    );
  });
  it("gives none for words it cannot place", () => {
    expect(retryAfterInstant("3pm", from)).toBeUndefined();
    expect(retryAfterInstant("", from)).toBeUndefined();
    expect(retryAfterInstant("soon", from)).toBeUndefined();
  });
});

describe("attempt keys", () => {
  it("gives each attempt of a slot a key of its own, and reads the slot back from it", () => {
    const key = "nightly@2026-11-27T02:00:00.000Z";
    expect(attemptKey(key, undefined)).toBe(key);
    expect(attemptKey(key, 1)).toBe(key);
    expect(attemptKey(key, 3)).toBe(`${key}#3`);
    const runId = "nightly-20261127T0200-aaaaa";
    expect(slotOfKey(`${key}#3`, runId)).toEqual({
      schedule: "nightly",
      slot: "2026-11-27T02:00:00.000Z",
      attempt: 3,
    });
    expect(slotOfKey(`${key}~2026-11-27T03:00:00.000Z`, runId)).toEqual({
      schedule: "nightly",
      slot: "2026-11-27T02:00:00.000Z",
    });
    // A webhook delivery's key has no slot: the run id carries its minute.
    expect(slotOfKey("nightly@hook/msg_1~skipped@2026-11-27T02:00:09.000Z#2", runId)).toEqual({
      schedule: "nightly",
      slot: "2026-11-27T02:00:00.000Z",
      attempt: 2,
    });
  });
});

describe("retry as written", () => {
  const context = { fileDir: "/srv/cron/schedules", configDir: "/srv/cron" };
  const entry = (extra: string) =>
    `[[schedule]]\nname = "nightly"\ncron = "0 2 * * *"\nkind = "command"\ncommand = ["true"]\n${extra}`;
  const configOf = (text: string) => parseConfigText("autoloop-cron.toml", text, "/srv/cron");
  const parse = (text: string, configText = "") =>
    parseScheduleFile(
      "schedules/s.toml",
      text,
      scheduleDefaults(
        configText === "" ? defaultConfig("/srv/cron") : configOf(configText).config!,
      ),
      context,
    );

  it("reads attempts, delay, on and page, with defaults, and [defaults]'s retry", () => {
    const own = parse(entry('retry = { attempts = 3, delay = "10m", on = ["failed"] }'));
    expect(own.problems).toEqual([]);
    expect(own.schedules[0]!.retry).toEqual({
      attempts: 3,
      delayMs: 600_000,
      on: ["failed"],
      page: "last",
    });
    const inherited = parse(entry(""), '[defaults]\nretry = { attempts = 2, page = "first" }\n');
    expect(inherited.schedules[0]!.retry).toEqual({
      attempts: 2,
      delayMs: 300_000,
      on: ["rate_limited", "transient"],
      page: "first",
    });
    expect("retry" in parse(entry("")).schedules[0]!).toBe(false);
    // One attempt in all: a schedule's way out of [defaults]'s retries.
    const out = parse(entry("retry = { attempts = 1 }"), "[defaults]\nretry = { attempts = 3 }\n");
    expect(out.problems).toEqual([]);
    expect("retry" in out.schedules[0]!).toBe(false);
  });

  it("refuses a retry that cannot be meant, with the fix", () => {
    expect(
      parse(
        entry(
          'retry = { attempts = 0, delay = "soon", on = ["flaky"], page = "never", tries = 2 }',
        ),
      ).problems.map(formatProblem),
    ).toEqual([
      "schedules/s.toml: schedule[0].retry.attempts: found 0; expected a whole number of attempts in all, from 1 (no retry: a schedule's way out of [defaults]'s) to 10",
      'schedules/s.toml: schedule[0].retry.delay: found "soon"; expected a duration such as "90s", "20m", "2h", "1d" or "1h30m", greater than zero',
      'schedules/s.toml: schedule[0].retry.on[0]: found "flaky"; expected one of "rate_limited", "transient", "timed_out", "failed"',
      'schedules/s.toml: schedule[0].retry.page: found "never"; expected one of "first", "last"',
      'schedules/s.toml: schedule[0].retry.tries: found unknown key "tries"; expected one of the known keys: attempts, delay, on, page',
    ]);
    expect(configOf("[defaults]\nretry = { attempts = 20 }\n").problems.map(formatProblem)).toEqual(
      [
        "autoloop-cron.toml: defaults.retry.attempts: found 20; expected a whole number of attempts in all, from 1 (no retry: a schedule's way out of [defaults]'s) to 10",
      ],
    );
  });
});
