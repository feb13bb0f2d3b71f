import { mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { loadConfig } from "../../src/scheduler/config/config.js";
import { BUNDLED_PRESETS_DIR, validateAll } from "../../src/scheduler/schedules/validate.js";
import {
  formatValidationReport,
  validationReportJson,
} from "../../src/scheduler/schedules/validation-report.js";
import { formatProblem } from "../../src/util/errors.js";

let dir: string;

function write(path: string, text: string): void {
  mkdirSync(join(dir, path, ".."), { recursive: true });
  writeFileSync(join(dir, path), text);
}

const schedule = (name: string, extra = "") =>
  `[[schedule]]\nname = "${name}"\ncron = "0 2 * * *"\npreset = "autofix"\nobjective = "o"\n${extra}\n`;

function validate() {
  const report = validateAll(loadConfig("autoloop-cron.toml", dir));
  return {
    report,
    names: report.schedules.map((s) => s.name),
    problems: report.problems.map(formatProblem),
    warnings: report.warnings.map(formatProblem),
  };
}

describe("validateAll", () => {
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), "autoloop-cron-validate-"));
    write(
      "autoloop-cron.toml",
      '[[channel]]\nname = "mail"\ntype = "email"\nfrom = "a@example.com"\nto = ["b@example.com"]\n',
    );
    write("presets/autofix/autoloops.toml", "");
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it("loads good files, resolves presets and skips only the bad file", () => {
    write(
      "schedules/a.toml",
      schedule("nightly-build") + schedule("nightly-fix", 'after = ["nightly-build"]'),
    );
    write(
      "schedules/bad.toml",
      '[[schedule]]\nname = "x"\ncron = "61 * * * *"\npreset = "autofix"\nobjective = "o"\n',
    );
    write("schedules/notes.txt", "not a schedule");
    const { report, names, problems } = validate();
    expect(names).toEqual(["nightly-build", "nightly-fix"]);
    expect(problems).toEqual([
      'schedules/bad.toml: schedule[0].cron: found "61 * * * *"; expected a cron expression of 5 or 6 fields ([second] minute hour day-of-month month day-of-week) or one of @hourly, @daily, @weekly, @monthly, @yearly (Invalid value for minute: 61)',
    ]);
    expect(report.schedules[0]).toMatchObject({ presetDir: join(dir, "presets", "autofix") });
  });

  it("names both files for a duplicate name and keeps the first", () => {
    write("schedules/a.toml", schedule("nightly"));
    write("schedules/b.toml", schedule("other") + schedule("nightly"));
    const { names, problems } = validate();
    expect(names).toEqual(["nightly", "other"]);
    expect(problems).toEqual([
      'schedules/b.toml: schedule[1].name: found "nightly"; expected a name no other schedule has (schedules/a.toml: schedule[0] has it); rename this one',
    ]);
  });

  it("blames the newcomer reusing a name, even when its file sorts first", () => {
    write("schedules/b-original.toml", schedule("nightly"));
    const hourAgo = new Date(Date.now() - 3_600_000);
    utimesSync(join(dir, "schedules/b-original.toml"), hourAgo, hourAgo);
    write(
      "schedules/a-newcomer.toml",
      schedule("nightly", 'cron = "0 3 * * *"').replace('cron = "0 2 * * *"\n', ""),
    );
    const { report, problems } = validate();
    expect(report.schedules.map((s) => s.file)).toEqual(["schedules/b-original.toml"]);
    expect(problems).toEqual([
      'schedules/a-newcomer.toml: schedule[0].name: found "nightly"; expected a name no other schedule has (schedules/b-original.toml: schedule[0] has it); rename this one',
    ]);
  });

  it.each([
    ["as each file's names", '{"schedules/b.toml": ["other", "nightly"]}\n'],
    ["as one file per name (older versions)", '{"nightly": "schedules/b.toml"}\n'],
  ])("sides with the running daemon's record of which file holds a name, %s", (_, record) => {
    write("schedules/a.toml", schedule("nightly"));
    write("schedules/b.toml", schedule("nightly"));
    // The daemon loaded b.toml first; a.toml came later but was touched to look older.
    write(".autoloop-cron/schedules-in-force.json", record);
    const { report, problems } = validate();
    expect(report.schedules.map((s) => s.file)).toEqual(["schedules/b.toml"]);
    expect(problems).toEqual([
      'schedules/a.toml: schedule[0].name: found "nightly"; expected a name no other schedule has (schedules/b.toml: schedule[0] has it, and is in force); rename this one',
    ]);
  });

  it("rejects unknown after targets and after cycles", () => {
    write(
      "schedules/a.toml",
      schedule("build", 'after = ["tset"]') +
        schedule("test", 'after = ["deploy"]') +
        schedule("deploy", 'after = ["test"]') +
        schedule("lint"),
    );
    const { names, problems } = validate();
    expect(names).toEqual(["lint"]);
    expect(problems).toEqual([
      'schedules/a.toml: schedule[0].after[0]: found "tset"; expected the name of a schedule (did you mean "test"?)',
      'schedules/a.toml: schedule[1].after: found ["deploy"]; expected no cycle of after dependencies (test → deploy → test)',
      'schedules/a.toml: schedule[2].after: found ["test"]; expected no cycle of after dependencies (test → deploy → test)',
    ]);
  });

  it("rejects a schedule that depends on itself", () => {
    write("schedules/a.toml", schedule("loop", 'after = ["loop"]'));
    expect(validate().problems).toEqual([
      'schedules/a.toml: schedule[0].after: found ["loop"]; expected no cycle of after dependencies (loop → loop)',
    ]);
  });

  it("rejects unknown alert channels and unknown presets", () => {
    write(
      "schedules/a.toml",
      schedule("one", 'alert = ["mial"]') + schedule("two").replace('"autofix"', '"autofx"'),
    );
    const { names, problems } = validate();
    expect(names).toEqual([]);
    expect(problems).toEqual([
      'schedules/a.toml: schedule[0].alert[0]: found "mial"; expected the name of a [[channel]] in the config (did you mean "mail"?)',
      `schedules/a.toml: schedule[1].preset: found "autofx"; expected a preset folder containing autoloops.toml (looked in presets/autofx and ${join(BUNDLED_PRESETS_DIR, "autofx")}; did you mean "autofix"?)`,
    ]);
  });

  it("warns, without dropping the schedule, about a missing project_dir and oversized jitter", () => {
    write("schedules/a.toml", schedule("one", 'project_dir = "/nonexistent/app"\njitter = "1d"'));
    const { names, warnings } = validate();
    expect(names).toEqual(["one"]);
    expect(warnings).toEqual([
      'schedules/a.toml: schedule[0].project_dir: found "/nonexistent/app"; expected an existing folder (runs fail until it exists)',
      'schedules/a.toml: schedule[0].jitter: found "1d"; expected less than the time between two slots, or slots fire out of order',
    ]);
  });

  it("warns when the schedules folder is missing", () => {
    const { names, problems, warnings } = validate();
    expect([names, problems]).toEqual([[], []]);
    expect(warnings).toEqual([
      "schedules: found no such folder; expected a folder of schedule files (no schedules are loaded)",
    ]);
  });

  it("formats the report for people and as JSON", () => {
    write(
      "schedules/a.toml",
      schedule("nightly", 'timezone = "Europe/Berlin"') + schedule("off", "enabled = false"),
    );
    write("schedules/bad.toml", schedule("x", 'overlap = "never"'));
    const { report } = validate();
    const now = new Date("2026-03-28T12:00:00Z");
    expect(formatValidationReport(report, now)).toBe(
      [
        'error: schedules/bad.toml: schedule[0].overlap: found "never"; expected one of "skip", "queue", "replace", "allow"',
        "ok: nightly  0 2 * * *  Europe/Berlin  (schedules/a.toml)  next 2026-03-29T01:00:00.000Z",
        "ok: off  0 2 * * *  UTC  (schedules/a.toml)  (disabled)",
        "2 schedules valid, 1 error, 0 warnings",
      ].join("\n"),
    );
    const json = validationReportJson(report, now);
    expect(JSON.parse(JSON.stringify(json))).toEqual(json);
    expect(json.ok).toBe(false);
    expect(json.schedules[0]).toEqual({
      name: "nightly",
      file: "schedules/a.toml",
      cron: "0 2 * * *",
      timezone: "Europe/Berlin",
      enabled: true,
      next: "2026-03-29T01:00:00.000Z",
    });
    expect(json.problems[0]).toMatchObject({ field: "schedule[0].overlap", found: '"never"' });
  });
});

describe("a preset's topology, as validate sees it", () => {
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), "autoloop-cron-topology-"));
    write("autoloop-cron.toml", "");
    for (const role of ["writer", "checker", "lost"])
      write(`presets/report/roles/${role}.md`, `You are the ${role}.\n`);
    write(
      "presets/report/autoloops.toml",
      '[event_loop]\ncompletion_event = "task.complete"\nrequired_events = ["report.written"]\n[backend]\ncommand = "claude"\n',
    );
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  const role = (id: string, emits: string[]) =>
    `[[role]]\nid = "${id}"\nemits = ${JSON.stringify(emits)}\nprompt_file = "roles/${id}.md"\n`;

  it("refuses a preset whose required event no reachable role emits, naming the file and the fix", () => {
    write(
      "presets/report/topology.toml",
      `${role("writer", ["draft.done"])}${role("checker", ["task.complete"])}${role("lost", ["report.written"])}[handoff]\n"loop.start" = ["writer"]\n"draft.done" = ["checker"]\n`,
    );
    write(
      "schedules/a.toml",
      schedule("weekly", 'preset = "report"').replace('preset = "autofix"\n', ""),
    );
    const { problems, warnings, names } = validate();
    expect(names).toEqual([]);
    expect(problems).toEqual([
      'schedules/a.toml: schedule[0].preset: found "report"; expected a preset that can complete (presets/report/autoloops.toml: event_loop.required_events: found "report.written"; expected an event a role the loop reaches emits (none does, so the completion gate can never pass): add it to a role\'s emits, or drop it from required_events)',
    ]);
    expect(warnings).toEqual([
      'presets/report/topology.toml: role "lost": found a role no handoff leads to from loop.start; expected a role some handoff names (or remove it)',
      'presets/report/topology.toml: role "lost".emits: found "report.written"; expected an event a handoff routes (after one with none, every role is suggested)',
    ]);
  });

  it("refuses a chain.spawn preset it cannot find and warns of spawn limits left unnamed", () => {
    write(
      "presets/report/autoloops.toml",
      '[event_loop]\ncompletion_event = "task.complete"\n[backend]\ncommand = "claude"\n[chain_spawn]\npresets = ["review", "nope"]\nmax_depth = 2\n',
    );
    write(
      "presets/report/topology.toml",
      `${role("writer", ["chain.spawn", "task.complete"])}[handoff]\n"loop.start" = ["writer"]\n`,
    );
    write(
      "schedules/a.toml",
      schedule("weekly", 'preset = "report"').replace('preset = "autofix"\n', ""),
    );
    const { problems, warnings } = validate();
    expect(problems).toEqual([
      expect.stringContaining(
        'schedules/a.toml: schedule[0].preset: found "report"; expected a preset that can complete (presets/report/autoloops.toml: chain_spawn.presets: found "nope"; expected a preset a spawn can run (no preset "nope" in ',
      ),
    ]);
    expect(warnings).toEqual([
      "presets/report/autoloops.toml: chain_spawn: found no max_children; expected the limits named (max_depth = 1, max_children = 1 apply meanwhile): a run's agent asks for spawns, the preset says how many",
    ]);
  });

  it("refuses a gate no emit can pass and warns of a gate refusal no handoff routes", () => {
    write(
      "presets/report/autoloops.toml",
      '[event_loop]\ncompletion_event = "task.complete"\n[backend]\ncommand = "claude"\n',
    );
    write(
      "presets/report/topology.toml",
      `${role("writer", ["draft.done"])}${role("checker", ["task.complete"])}[handoff]\n"loop.start" = ["writer"]\n"draft.done" = ["checker"]\n[[gate]]\nevent = "draft.done"\nevidence = [{ key = "coverage", type = "coverage", min = 90, max = 80 }]\n`,
    );
    write(
      "schedules/a.toml",
      schedule("weekly", 'preset = "report"').replace('preset = "autofix"\n', ""),
    );
    const { problems, warnings } = validate();
    expect(problems).toEqual([
      'schedules/a.toml: schedule[0].preset: found "report"; expected a preset that can complete (presets/report/topology.toml: gate[0].evidence[0]: found coverage: min 90 above max 80; expected a range some value can meet (no emit of draft.done can ever pass this gate): lower min or raise max)',
    ]);
    expect(warnings).toEqual([
      'presets/report/topology.toml: gate[0].blocked: found "draft.blocked"; expected an event a handoff routes, to the role that can supply the evidence (after one with none, every role is suggested): add [handoff] "draft.blocked" = ["<role>"]',
    ]);
  });

  it("warns of a completion event no role emits and of a handoff for an event nobody emits", () => {
    write(
      "presets/report/autoloops.toml",
      '[event_loop]\ncompletion_event = "task.complete"\n[backend]\ncommand = "claude"\n',
    );
    write(
      "presets/report/topology.toml",
      `${role("writer", ["draft.done"])}${role("checker", ["draft.rejected"])}[handoff]\n"loop.start" = ["writer"]\n"draft.done" = ["checker"]\n"draft.rejected" = ["writer"]\n"review.asked" = ["checker"]\n`,
    );
    write(
      "schedules/a.toml",
      schedule("weekly", 'preset = "report"').replace('preset = "autofix"\n', ""),
    );
    const { problems, warnings, names } = validate();
    expect(problems).toEqual([]);
    expect(names).toEqual(["weekly"]);
    expect(warnings).toEqual([
      'presets/report/autoloops.toml: event_loop.completion_event: found "task.complete"; expected an event a role the loop reaches emits (none does: a run ends only when the agent prints "LOOP_COMPLETE", or at max_iterations)',
      'presets/report/topology.toml: handoff."review.asked": found an event no role emits; expected an event in some role\'s emits (or remove the handoff)',
    ]);
  });

  it("warns of a hook that runs a file of the work dir and of a post_run hook that asks to block", () => {
    write(
      "presets/report/autoloops.toml",
      '[event_loop]\ncompletion_event = "task.complete"\n[backend]\ncommand = "claude"\n[[hook]]\nphase = "post_run"\ncommand = "./sync.sh push"\non_error = "block"\n',
    );
    write(
      "presets/report/topology.toml",
      `${role("writer", ["task.complete"])}[handoff]\n"loop.start" = ["writer"]\n`,
    );
    write(
      "schedules/a.toml",
      schedule("weekly", 'preset = "report"').replace('preset = "autofix"\n', ""),
    );
    const { problems, warnings } = validate();
    expect(problems).toEqual([]);
    expect(warnings).toEqual([
      'presets/report/autoloops.toml: hook[0].on_error: found "block"; expected "warn": post_run runs after the run has ended, so its failure can neither block nor suspend it',
      "presets/report/autoloops.toml: hook[0].command: found \"./sync.sh\", a file of the work dir; expected a program on PATH or an absolute path outside the project: the hook runs as you, and the run's agent can rewrite the work dir's files first",
    ]);
  });

  it("warns of a metareview that can complete the run past the acceptance gate, and of a model a command backend is not passed", () => {
    write(
      "presets/report/autoloops.toml",
      '[event_loop]\ncompletion_event = "task.complete"\n[backend]\ncommand = "claude"\n[review]\n[acceptance]\nverify_cmds = ["npm test"]\n',
    );
    write(
      "presets/report/topology.toml",
      `${role("writer", ["task.complete"])}backend_command = "./agent.sh"\nbackend_model = "opus"\n[handoff]\n"loop.start" = ["writer"]\n`,
    );
    write(
      "schedules/a.toml",
      schedule("weekly", 'preset = "report"').replace('preset = "autofix"\n', ""),
    );
    const { problems, warnings } = validate();
    expect(problems).toEqual([]);
    expect(warnings).toEqual([
      "presets/report/autoloops.toml: review.enabled: found true, with 1 [acceptance] command(s); expected no metareview, or one trusted to end the run: its EXIT or TAKEOVER completes the run without the acceptance gate (as in the public autoloop)",
      'presets/report/topology.toml: role "writer".backend_model: found "opus" for "./agent.sh", a command backend; expected claude, codex or gemini (backend_kind), which take a model flag, or the model\'s flag in backend_args: a command backend is not passed one',
    ]);
  });

  it("refuses a schedule whose set the preset does not take", () => {
    write(
      "presets/report/topology.toml",
      `${role("writer", ["task.complete"])}[handoff]\n"loop.start" = ["writer"]\n`,
    );
    write(
      "schedules/a.toml",
      schedule(
        "weekly",
        'preset = "report"\nset = { "event_loop.max_iterations" = "many" }',
      ).replace('preset = "autofix"\n', ""),
    );
    const { problems } = validate();
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatch(
      /^schedules\/a\.toml: schedule\[0\]\.set: found \["event_loop\.max_iterations=\\"many\\""\]; expected settings the preset takes \(.*max_iterations/,
    );
  });

  it("finds nothing to say about the bundled presets", () => {
    write(
      "schedules/a.toml",
      [
        "autofix",
        "review",
        "demo",
        "security-review",
        "weekly-summary",
        "dependency-updates",
        "flaky-test-hunt",
        "docs-drift",
        "simplify",
        "implement-spec",
        "qa-pass",
        "perf-pass",
        "debug-failure",
        "test-writer",
      ]
        .map((p) => schedule(p, `preset = "${p}"`).replace('preset = "autofix"\n', ""))
        .join(""),
    );
    rmSync(join(dir, "presets"), { recursive: true, force: true });
    const { problems, warnings } = validate();
    expect(problems).toEqual([]);
    expect(warnings.filter((w) => w.includes("presets/"))).toEqual([]);
  });

  it("warns when a preset that publishes a report lets an agent write in the project", () => {
    write(
      "presets/report/autoloops.toml",
      [
        '[event_loop]\ncompletion_event = "task.complete"',
        '[backend]\ncommand = "claude"',
        '[backend.agent_args]\nclaude = ["--permission-mode", "default", "--allowedTools", "Read,Write"]',
        'codex = ["--sandbox", "read-only"]',
        'gemini = ["--approval-mode", "default"]',
        '[outputs]\npublish = ["REPORT.md"]\n',
      ].join("\n"),
    );
    write(
      "presets/report/topology.toml",
      `${role("writer", ["task.complete"])}[handoff]\n"loop.start" = ["writer"]\n`,
    );
    write(
      "schedules/a.toml",
      schedule("weekly", 'preset = "report"').replace('preset = "autofix"\n', ""),
    );
    const { problems, warnings } = validate();
    expect(problems).toEqual([]);
    expect(warnings).toEqual([
      "presets/report/autoloops.toml: backend.agent_args.claude: found an agent that may write in the project (--allowedTools Write (on any path)); expected arguments that hold claude to the run's state dir, as the bundled review preset's do, since the preset publishes REPORT.md and should change nothing else",
    ]);
  });
});
