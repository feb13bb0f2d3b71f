// The digest's pure core and its sender: what a period's report holds, when a digest is due
// (first sight, its slot, a restart, a slot missed while down), and the marks file on disk.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { digestText } from "../../src/monitor/alerts/digest-render.js";
import { buildDigest, DIGEST_RUNS_PER_SCHEDULE } from "../../src/monitor/alerts/digest-report.js";
import type { AlertMessage } from "../../src/monitor/alerts/message.js";
import { DigestSender, digestSteps } from "../../src/monitor/digest-sender.js";
import { parseConfigText } from "../../src/scheduler/config/config.js";
import { type DigestConfig, unknownDigestSchedules } from "../../src/scheduler/config/digests.js";
import type { RunSummary } from "../../src/scheduler/ledger/events.js";
import { formatProblem } from "../../src/util/errors.js";
import { cleanupTempDirs, tempDir } from "../helpers/cli.js";

afterEach(cleanupTempDirs);

const MORNING: DigestConfig = {
  name: "morning",
  cron: "0 7 * * *",
  timezone: "Europe/Berlin",
  channels: ["mail"],
  schedules: [],
};
const at = (iso: string) => Date.parse(iso);

function run(id: string, finishedAt: string, extra: Partial<RunSummary> = {}): RunSummary {
  return {
    runId: id,
    schedule: "nightly",
    slot: finishedAt,
    status: "completed",
    finishedAt,
    ...extra,
  };
}

describe("buildDigest", () => {
  const base = {
    name: "morning",
    since: at("2026-11-28T06:00:00Z"),
    until: at("2026-11-29T06:00:00Z"),
    timezone: "Europe/Berlin",
    questions: [],
    incidents: [],
    spend: [],
  };

  it("counts the period's runs by outcome with cost, duration and pull request; older and later runs are left out", () => {
    const runs = [
      run("late", "2026-11-29T06:30:00Z"),
      run("b", "2026-11-29T02:10:00Z", {
        status: "failed",
        stopReason: "agent_error\u001b[2J",
        durationMs: 600_000,
      }),
      run("a", "2026-11-29T01:10:00Z", { costUsd: 0.5, durationMs: 750_000 }),
      run("pr", "2026-11-28T09:00:00Z", {
        costUsd: 0.25,
        pullRequest: "https://git/pr/7",
      } as Partial<RunSummary>),
      run("old", "2026-11-27T01:00:00Z"),
    ];
    const report = buildDigest({
      ...base,
      schedules: ["nightly", "idle"],
      runsOf: (s) => (s === "nightly" ? runs : []),
    });
    expect(report.schedules).toHaveLength(1); // a schedule without runs is left out
    const [s] = report.schedules;
    expect(s!.counts).toEqual({ failed: 1, completed: 2 });
    expect(s!.costUsd).toBeCloseTo(0.75);
    expect(s!.unknownCost).toBe(1);
    expect(s!.runs.map((r) => r.runId)).toEqual(["b", "a", "pr"]);
    expect(s!.runs[2]!.pullRequest).toBe("https://git/pr/7");
    const text = digestText(report);
    expect(text).toContain('Digest "morning": 3 runs: 1 failed, 2 completed; $0.75');
    expect(text).toContain("2026-11-28 07:00 to 2026-11-29 07:00 Europe/Berlin");
    expect(text).toContain("- completed  02:10  12m30s  $0.50  a");
    // Run text reaches terminals with its control bytes shown, not obeyed.
    expect(text).toContain("- failed  03:10  10m  cost unknown  b  (agent_error\\u001b[2J)");
    expect(text).toContain("- completed  11-28 10:00"); // another day than the period's end
    expect(text).toContain("PR https://git/pr/7");
  });

  it("lists a bounded number of runs per schedule and counts the rest", () => {
    const many = Array.from({ length: DIGEST_RUNS_PER_SCHEDULE + 5 }, (_, i) =>
      run(`r${i}`, new Date(at("2026-11-29T05:00:00Z") - i * 60_000).toISOString()),
    );
    const report = buildDigest({ ...base, schedules: ["nightly"], runsOf: () => many });
    expect(report.schedules[0]!.runs).toHaveLength(DIGEST_RUNS_PER_SCHEDULE);
    expect(report.schedules[0]!.more).toBe(5);
    expect(digestText(report)).toContain("… and 5 more (autoloop-cron runs nightly)");
  });
});

describe("when a digest is due", () => {
  it("only starts its period when first seen, then is due at each slot, once however many passed", () => {
    const now = at("2026-11-29T05:00:00Z");
    expect(digestSteps([MORNING], new Map(), now)).toEqual([
      { kind: "first_seen", digest: MORNING },
    ]);
    const marks = new Map([["morning", at("2026-11-28T06:00:00Z")]]);
    // 07:00 Berlin is 06:00 UTC in winter.
    expect(digestSteps([MORNING], marks, at("2026-11-29T05:59:59Z"))).toEqual([]);
    expect(digestSteps([MORNING], marks, at("2026-11-29T06:00:00Z"))).toEqual([
      { kind: "send", digest: MORNING, since: at("2026-11-28T06:00:00Z") },
    ]);
    // Across the change to summer time 07:00 Berlin moves to 05:00 UTC.
    const spring = new Map([["morning", at("2026-03-28T06:00:00Z")]]);
    expect(digestSteps([MORNING], spring, at("2026-03-29T04:59:59Z"))).toEqual([]);
    expect(digestSteps([MORNING], spring, at("2026-03-29T05:00:00Z"))).toHaveLength(1);
    // Down for three days: one digest covering all of them.
    expect(digestSteps([MORNING], marks, at("2026-12-02T09:00:00Z"))).toHaveLength(1);
  });

  it("sends through the outbox and keeps its marks: a restart neither repeats nor skips, a missed one goes once", async () => {
    const stateDir = tempDir("autoloop-digest-");
    const sent: { message: AlertMessage; channels: readonly string[] }[] = [];
    const outbox = {
      enqueue: (message: AlertMessage, channels: readonly string[]) => {
        sent.push({ message, channels });
        return [];
      },
      durable: async () => {},
    };
    const reads: [number, number][] = [];
    const sender = () =>
      new DigestSender({
        digests: [MORNING],
        stateDir,
        outbox,
        read: (d, since, until) => {
          reads.push([since, until]);
          return buildDigest({
            ...d,
            since,
            until,
            schedules: [],
            runsOf: () => [],
            questions: [],
            incidents: [],
            spend: [],
          });
        },
        log: { info() {}, warn() {}, error() {} },
      });
    await sender().check(at("2026-11-28T12:00:00Z")); // first seen: nothing sent
    expect(sent).toHaveLength(0);
    await sender().check(at("2026-11-29T06:00:05Z")); // a restart, then the slot
    expect(sent).toHaveLength(1);
    expect(sent[0]!.channels).toEqual(["mail"]);
    expect(sent[0]!.message).toMatchObject({ kind: "digest", digest: { name: "morning" } });
    expect(reads[0]).toEqual([at("2026-11-28T12:00:00Z"), at("2026-11-29T06:00:05Z")]);
    await sender().check(at("2026-11-29T06:30:00Z")); // restarted again: not repeated
    expect(sent).toHaveLength(1);
    await sender().check(at("2026-12-01T08:00:00Z")); // down over two slots: sent once
    await sender().check(at("2026-12-01T08:00:10Z"));
    expect(sent).toHaveLength(2);
    expect(reads[1]![0]).toBe(at("2026-11-29T06:00:05Z"));
    const marks = JSON.parse(readFileSync(join(stateDir, "monitor", "digests.json"), "utf8"));
    expect(marks).toEqual({ morning: "2026-12-01T08:00:00.000Z" });
  });
});

describe("[[digest]] in autoloop-cron.toml", () => {
  const channels =
    '[[channel]]\nname = "mail"\ntype = "email"\nsmtp_url_env = "S"\nfrom = "a@x.y"\nto = ["b@x.y"]\n' +
    '[[channel]]\nname = "pd"\ntype = "pagerduty"\nrouting_key_env = "K"\n';
  const problems = (digest: string) => {
    const r = parseConfigText("autoloop-cron.toml", `${channels}[[digest]]\n${digest}`, "/d");
    return r.problems.map(formatProblem);
  };

  it("takes name, cron, timezone, channels and schedules, the zone defaulting to [defaults]'", () => {
    const r = parseConfigText(
      "c.toml",
      `${channels}[[digest]]\nname = "morning"\ncron = "0 7 * * *"\nchannels = ["mail"]\n`,
      "/d",
    );
    expect(r.config?.digests).toEqual([{ ...MORNING, timezone: "UTC" }]);
  });

  it("names the field, the value and the fix for an unknown channel, a paging channel or a bad cron", () => {
    expect(problems('name = "m"\ncron = "0 7 * * *"\nchannels = ["mial"]\n')).toEqual([
      expect.stringMatching(/digest\[0\]\.channels\[0\].*"mial".*did you mean "mail"/),
    ]);
    expect(problems('name = "m"\ncron = "0 7 * * *"\nchannels = ["pd"]\n')).toEqual([
      expect.stringMatching(
        /digest\[0\]\.channels\[0\].*"pd" \(a pagerduty channel\).*an email, webhook/,
      ),
    ]);
    expect(problems('name = "m"\ncron = "0 7 * *"\nchannels = ["mail"]\n')[0]).toMatch(
      /digest\[0\]\.cron/,
    );
    expect(problems('name = "m"\ncron = "0 7 * * *"\nchannels = []\n')[0]).toMatch(
      /digest\[0\]\.channels/,
    );
  });

  it("warns (validate) of digest schedules that name no valid schedule", () => {
    const digest = { ...MORNING, schedules: ["nightly", "nigthly"] };
    const warnings = unknownDigestSchedules([digest], new Set(["nightly"]), "c.toml");
    expect(warnings.map(formatProblem)).toEqual([
      expect.stringMatching(/c\.toml: digest\[0\]\.schedules\[1\]: found "nigthly"/),
    ]);
  });
});
