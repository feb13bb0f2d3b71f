// Task sync: a run whose preset asks for it (`[tasks] sync = "issue"`) starts with its issue's
// checkboxes as tasks, written by the daemon (redacted; which task came from which box kept in
// the daemon's record); when it ends, the boxes of the tasks it completed are ticked in the
// issue's body, nothing else changed. GitHub through the daemon, GitLab through `fire`.
import { appendFileSync, existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { execa } from "execa";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { startIssueFollowUps } from "../../src/app/issues.js";
import { IssueFollowUps } from "../../src/delivery/issue-followups.js";
import { loadPreset } from "../../src/harness/preset/preset.js";
import { TaskStore } from "../../src/harness/tasks/store.js";
import { readJournal } from "../../src/journal/reader.js";
import { loadConfig } from "../../src/scheduler/config/config.js";
import { withIssues } from "../../src/scheduler/launch/issue-spec.js";
import { validateAll } from "../../src/scheduler/schedules/validate.js";
import { readRunIssues, writeRunIssues } from "../../src/tracker/run-issues.js";
import type { TrackerSource } from "../../src/tracker/tracker.js";
import { formatProblem } from "../../src/util/errors.js";
import { processRedactor } from "../../src/util/secrets.js";
import { AUTOLOOP_CRON, cleanEnv, cleanupTempDirs, tempDir } from "../helpers/cli.js";
import { silentLogger, startDaemon, writeCronConfig } from "../helpers/daemon.js";
import { FakeGitHub } from "../helpers/fake-github.js";
import { FakeGitLab } from "../helpers/fake-gitlab.js";
import { scriptPreset } from "../helpers/script-preset.js";
import { waitFor } from "../helpers/wait.js";

const GH_TOKEN = "ghp_tasksynctoken0123456789";
const GL_TOKEN = "glpat-tasksynctoken0123456789";

const closers: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const c of closers.splice(0).reverse()) await c();
});
afterAll(cleanupTempDirs);

/** A preset whose agent runs `script`, with `[tasks] sync = "issue"` unless told otherwise. */
function syncPreset(dir: string, script: string, sync = true): string {
  const preset = scriptPreset(dir, { name: "sync", script });
  if (sync) appendFileSync(join(preset, "autoloops.toml"), '\n[tasks]\nsync = "issue"\n');
  return preset;
}

const presetSchedule = (preset: string, source: string, extra = "") =>
  `[[schedule]]\nname = "fix"\ncron = "* * * * * *"\npreset = ${JSON.stringify(preset)}\nobjective = "Fix it"\nproject_dir = "../work"\nsource = ${source}\n${extra}`;

const githubSource = (url: string): TrackerSource => ({
  kind: "github",
  repository: "octo/app",
  apiUrl: url,
  label: "agent-ready",
  workingLabel: "autoloop:working",
  doneLabel: "autoloop:done",
  limit: 1,
  token: { kind: "env", name: "GITHUB_TOKEN" },
});

describe("a run's tasks from its issue's checkboxes", () => {
  const runId = "fix-20260101T000000Z";
  const issue = {
    id: "7",
    ref: "#7",
    title: "Parser",
    body: "- [x] read it\n- [ ] fix it with ghp_pastedsecret0123456789\n```\n- [ ] an example\n```\n",
    url: "https://github.example/octo/app/issues/7",
    createdAt: "2026-01-01T00:00:00Z",
  };

  function launch(preset: string, taken = issue, source = githubSource("https://api.github.com")) {
    const dir = tempDir();
    const state = join(dir, "state");
    writeRunIssues(state, {
      schedule: "fix",
      runId,
      source,
      issues: [{ id: taken.id, ref: taken.ref, title: taken.title, url: taken.url }],
      takenAt: "2026-01-01T00:00:00Z",
      commented: [],
      released: [],
      failures: 0,
    });
    const spec = withIssues(
      {
        kind: "preset",
        runId,
        schedule: "fix",
        slot: new Date(0),
        cwd: dir,
        outputPath: "/dev/null",
        harness: ["autoloop"],
        preset,
        objective: "Fix it.",
      },
      [taken],
      source,
      state,
    );
    return { spec, file: join(dir, ".autoloop", "runs", runId, "tasks.jsonl"), state };
  }

  it("are written before the spawn, redacted, the boxes kept in the daemon's record", () => {
    processRedactor.add("ghp_pastedsecret0123456789");
    const { spec, file, state } = launch(syncPreset(tempDir(), "true"));
    expect(spec.env?.AUTOLOOP_TASKS_FILE).toBe(file);
    const view = new TaskStore(file).view();
    expect(view.open.map((t) => [t.id, t.text, t.source])).toEqual([
      ["task-2", "fix it with [REDACTED]", "github:7"],
    ]);
    expect(view.done.map((t) => [t.id, t.text])).toEqual([["task-1", "read it"]]);
    expect(readRunIssues(state, runId)?.taskSync?.boxes).toMatchObject([
      { issue: "7", task: "task-1", ordinal: 0, line: 0, checked: true },
      { issue: "7", task: "task-2", ordinal: 1, line: 1, checked: false },
    ]);
    expect(JSON.stringify(readRunIssues(state, runId))).not.toContain("ghp_pastedsecret");
  });

  it("are ticked back by a follow-up that is retried, and repeated without ticking twice", async () => {
    const github = await new FakeGitHub("octo", "app", GH_TOKEN).start();
    closers.push(() => github.close());
    const team = github.add("Parser", "- [ ] one\n- [ ] two\n");
    const taken = { ...issue, id: "1", ref: "#1", body: team.body };
    const { file, state } = launch(syncPreset(tempDir(), "true"), taken, githubSource(github.url));
    new TaskStore(file).complete("task-2"); // what the run did
    const followUps = new IssueFollowUps({
      stateDir: state,
      runInLedger: () => undefined,
      env: { GITHUB_TOKEN: GH_TOKEN },
      random: () => 0,
    });
    followUps.ended(runId, readRunIssues(state, runId), { kind: "failed", status: "failed" });
    const record = join(state, "issue-claims", "runs", `${runId}.json`);
    const before = readFileSync(record, "utf8");
    github.failures.push({ status: 502 });
    await followUps.deliverDue();
    expect(team.body).toBe("- [ ] one\n- [ ] two\n");
    expect(readRunIssues(state, runId)?.failures).toBe(1);
    await followUps.deliverDue(Date.now() + 3_600_000);
    expect(team.body).toBe("- [ ] one\n- [x] two\n");
    // Killed before anything was recorded: the repeat finds the box ticked and edits nothing.
    writeFileSync(record, before);
    await followUps.deliverDue(Date.now() + 3_600_000);
    expect(team.body).toBe("- [ ] one\n- [x] two\n");
    expect(github.requests.filter((r) => r.method === "PATCH")).toHaveLength(1);
    expect(github.problems).toEqual([]);
  });

  it("are not written for a preset that does not ask", () => {
    const { spec, file, state } = launch(syncPreset(tempDir(), "true", false));
    expect(spec.env?.AUTOLOOP_TASKS_FILE).toBeUndefined();
    expect(existsSync(file)).toBe(false);
    expect(readRunIssues(state, runId)?.taskSync).toBeUndefined();
  });
});

describe("the preset key", () => {
  it('refuses a value other than "issue", naming the file, the field and the value', () => {
    const preset = syncPreset(tempDir(), "true", false);
    appendFileSync(join(preset, "autoloops.toml"), '\n[tasks]\nsync = "issues"\n');
    expect(() => loadPreset(preset)).toThrow(
      'autoloops.toml: tasks.sync: found "issues"; expected one of "issue"',
    );
  });

  it("validate warns of a schedule whose preset asks for it without a source", () => {
    const dir = tempDir();
    const preset = syncPreset(dir, "true");
    writeCronConfig(
      dir,
      `[[schedule]]\nname = "s"\ncron = "0 2 * * *"\npreset = ${JSON.stringify(preset)}\nobjective = "o"\nproject_dir = "../work"\n`,
    );
    const report = validateAll(loadConfig(join(dir, "autoloop-cron.toml")));
    expect(report.warnings.map(formatProblem)).toEqual([
      expect.stringContaining(
        "schedule[0].source: found none; expected an issue tracker (source = { github_issues = { ... } }): the preset asks for task sync",
      ),
    ]);
  });
});

// The team's issue: three boxes (one ticked), a fenced example, CRLF line ends.
const BODY = [
  "Do these:",
  "- [x] read the code",
  "- [ ] fix the parser",
  "  * [ ] add a test",
  "```md",
  "- [ ] not a task",
  "```",
  "Thanks!",
].join("\r\n");

describe("task sync with GitHub, through the daemon", () => {
  it("the run sees 2 open tasks and 1 done, completes them, and every box ends ticked", async () => {
    const dir = tempDir();
    const github = await new FakeGitHub("octo", "app", GH_TOKEN).start();
    closers.push(() => github.close());
    const preset = syncPreset(
      dir,
      `"$AUTOLOOP_BIN" task list > tasks-seen.txt
"$AUTOLOOP_BIN" task complete task-2
"$AUTOLOOP_BIN" task complete task-3
exec "$AUTOLOOP_BIN" emit task.complete "all done"`,
    );
    const source = `{ github_issues = { repo = "octo/app", api_url = "${github.url}" } }`;
    const config = writeCronConfig(dir, presetSchedule(preset, source));
    process.env.GITHUB_TOKEN = GH_TOKEN;
    closers.push(async () => delete process.env.GITHUB_TOKEN);
    const issue = github.add("Fix the parser", BODY);
    const daemon = await startDaemon(config);
    const issues = startIssueFollowUps(daemon, silentLogger);
    closers.push(async () => {
      await daemon.shutdown("terminate", 0);
      await issues.followUps.close();
    });
    await waitFor(() => issue.labels.includes("autoloop:done"), "the issue marked done", 60_000);
    expect(readFileSync(join(dir, "work", "tasks-seen.txt"), "utf8")).toBe(
      "Open:\n- [ ] [task-2] fix the parser\n- [ ] [task-3] add a test\nDone:\n- [x] [task-1] read the code (done)\n",
    );
    expect(issue.body).toBe(
      BODY.replace("- [ ] fix", "- [x] fix").replace("* [ ] add", "* [x] add"),
    );
    expect(github.problems).toEqual([]);
  });
});

describe("task sync with GitLab, through fire", () => {
  it("a run that completes 1 of 2 tasks is refused completion and ticks only that box", async () => {
    const dir = tempDir();
    const gitlab = await new FakeGitLab("group/app", GL_TOKEN).start();
    closers.push(() => gitlab.close());
    const preset = syncPreset(
      dir,
      `"$AUTOLOOP_BIN" task complete task-1
exec "$AUTOLOOP_BIN" emit task.complete "claims done"`,
    );
    const source = `{ gitlab_issues = { project = "group/app", api_url = "${gitlab.url}" } }`;
    writeCronConfig(dir, presetSchedule(preset, source, "max_iterations = 1\n"));
    const body = "Steps:\n- [ ] first\n- [ ] second\n";
    const issue = gitlab.add("Two steps", body);
    const fired = await execa(
      process.execPath,
      [AUTOLOOP_CRON, "fire", "fix", "--config", join(dir, "autoloop-cron.toml")],
      { env: cleanEnv({ GITLAB_TOKEN: GL_TOKEN }), reject: false },
    );
    expect(fired.exitCode).not.toBe(0);
    expect(issue.description).toBe("Steps:\n- [x] first\n- [ ] second\n");
    // The synced task still open held the completion back.
    const gates = readJournal(join(dir, "work", ".autoloop", "journal.jsonl")).items.filter(
      (r) => r.topic === "task.gate",
    );
    expect(gates).toHaveLength(1);
    expect(issue.labels).not.toContain("autoloop:done");
    expect(gitlab.problems).toEqual([]);
  });
});
