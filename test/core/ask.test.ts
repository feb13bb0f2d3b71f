// A human in the loop, with real processes: an agent asks (`human.ask`), the run waits, and
// `autoloop control respond` answers it; a timeout; Ctrl-C while waiting; guidance that
// interrupts the agent's turn; bad answers refused with nothing written; and the control
// files in the public autoloop's format, both ways.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { execa } from "execa";
import { afterEach, describe, expect, it } from "vitest";
import { questionState } from "../../src/harness/control/operator-requests.js";
import { RunView } from "../../src/harness/run-view.js";
import type { JournalRecord } from "../../src/journal/codec.js";
import { autoloop, cleanupTempDirs, privateRunDir, tempDir } from "../helpers/cli.js";
import { field, journalOf, topics } from "../helpers/journal.js";
import { scriptPreset } from "../helpers/script-preset.js";
import { waitFor } from "../helpers/wait.js";

afterEach(cleanupTempDirs);

/**
 * A preset whose agent asks on its first turn and completes once the prompt carries the
 * operator's guidance; with `sleepFirst`, its first turn sleeps instead (to be interrupted).
 */
function askingPreset(dir: string, eventLoop = "", sleepFirst = false): string {
  return scriptPreset(dir, {
    name: "asker",
    eventLoop,
    onGuidance: `grep -A2 "OPERATOR GUIDANCE" "$AUTOLOOP_PROMPT_PATH" | tail -1 > "$AUTOLOOP_STATE_DIR/guidance.txt"`,
    script: sleepFirst
      ? 'echo "working"; exec sleep 60'
      : 'exec "$AUTOLOOP_BIN" emit human.ask "May I ship release 1.2?"',
  });
}

const pendingIn = (dir: string) => () =>
  existsSync(join(dir, ".autoloop", "journal.jsonl")) &&
  journalOf(dir).some((r) => r.topic === "ask.pending");

describe("a run that asks a human", () => {
  it("waits for the answer from `autoloop control respond`, and shows it in the next prompt", async () => {
    const dir = tempDir();
    const run = autoloop(["run", askingPreset(dir), "Ship it", "--run-id", "r1"], { cwd: dir });
    await waitFor(pendingIn(dir), "the question");
    const pending = journalOf(dir).find((r) => r.topic === "ask.pending")!;
    expect(pending.iteration).toBe("1");
    expect(field(pending, "question_id")).toBe("ask_r1_1");
    expect(field(pending, "question")).toBe("May I ship release 1.2?");
    expect(Date.parse(field(pending, "timeout_at"))).toBeGreaterThan(Date.now());
    // The asking event never routes.
    const show = await autoloop(["control", "show", "r1"], { cwd: dir });
    expect(show.stdout).toContain("Status:      waiting for an answer");
    expect(show.stdout).toContain('autoloop control respond r1 ask_r1_1 "<answer>"');

    // Refused, nothing written: a wrong question, an empty answer, a run id that escapes.
    const wrong = await autoloop(["control", "respond", "r1", "ask_r1_7", "yes"], { cwd: dir });
    expect(wrong.exitCode).toBe(1);
    expect(wrong.stderr).toContain("run r1 waits on question ask_r1_1, not ask_r1_7");
    const empty = await autoloop(["control", "respond", "r1", "ask_r1_1", " "], { cwd: dir });
    expect(empty.exitCode).toBe(1);
    const escaping = await autoloop(["control", "respond", "../r1", "ask_r1_1", "yes"], {
      cwd: dir,
    });
    expect(escaping.exitCode).toBe(1);
    expect(existsSync(join(dir, ".autoloop", "runs", "r1", "control", "requests.jsonl"))).toBe(
      false,
    );

    const answer = await autoloop(["control", "respond", "r", "ask_r1_1", "Yes,", "ship", "it"], {
      cwd: dir,
    });
    expect(answer.stdout).toBe("Response delivered to r1 for question ask_r1_1.");
    expect((await run).exitCode).toBe(0);
    const journal = journalOf(dir);
    const answered = journal.find((r) => r.topic === "ask.answered")!;
    expect(field(answered, "answer")).toBe("Yes, ship it");
    expect(field(answered, "answered_by")).toMatch(/^cli:.+@.+/);
    expect(topics(journal).slice(-1)).toEqual(["loop.complete"]);
    expect(readFileSync(join(dir, ".autoloop", "runs", "r1", "guidance.txt"), "utf8")).toBe(
      'Human response to "May I ship release 1.2?": Yes, ship it\n',
    );
    // Once answered, it waits on nothing.
    const late = await autoloop(["control", "respond", "r1", "ask_r1_1", "again"], { cwd: dir });
    expect(late.exitCode).toBe(1);
    expect(late.stderr).toContain("run r1 has ended");
  }, 30_000);

  it("goes on without an answer after ask_timeout, and ends cleanly when stopped while waiting", async () => {
    const dir = tempDir();
    const timed = await autoloop(
      [
        "run",
        askingPreset(dir, 'ask_timeout = "300ms"'),
        "Ship it",
        "--run-id",
        "t1",
        "--max-iterations",
        "1",
      ],
      { cwd: dir },
    );
    expect(timed.exitCode).toBe(3);
    expect(topics(journalOf(dir))).toEqual(
      expect.arrayContaining(["ask.pending", "ask.timeout", "loop.stop"]),
    );

    const other = tempDir();
    const run = autoloop(["run", askingPreset(other), "Ship it", "--run-id", "s1"], { cwd: other });
    await waitFor(pendingIn(other), "the question");
    run.kill("SIGTERM");
    expect((await run).exitCode).toBe(130);
    const journal = journalOf(other);
    expect(topics(journal).filter((t) => t.startsWith("ask."))).toEqual(["ask.pending"]);
    expect(field(journal.at(-1), "reason")).toBe("interrupted");
  }, 30_000);

  it("stops the agent's turn for guidance that interrupts, and the next turn acts on it", async () => {
    const dir = tempDir();
    const run = autoloop(["run", askingPreset(dir, "", true), "Ship it", "--run-id", "g1"], {
      cwd: dir,
    });
    await waitFor(
      () =>
        existsSync(join(dir, ".autoloop", "journal.jsonl")) &&
        journalOf(dir).some((r) => r.topic === "backend.start"),
      "the agent's first turn",
    );
    const guided = await autoloop(["control", "guide", "g1", "Stop", "sleeping;", "finish", "up"], {
      cwd: dir,
    });
    expect(guided.exitCode, guided.stderr).toBe(0);
    expect(guided.stdout).toContain("Guidance queued for g1 (interrupt requested");
    const result = await run;
    expect(result.exitCode, result.stderr).toBe(0);
    const journal = journalOf(dir);
    expect(topics(journal)).toEqual(
      expect.arrayContaining([
        "operator.guidance",
        "operator.interrupt",
        "operator.guidance.consumed",
      ]),
    );
    expect(readFileSync(join(dir, ".autoloop", "runs", "g1", "guidance.txt"), "utf8")).toBe(
      "Stop sleeping; finish up\n",
    );
    // Requests and their acks go through the run's private folder, not its own `control/`.
    const status = readFileSync(join(privateRunDir(dir, "g1"), "control", "status.jsonl"), "utf8");
    expect(status).toContain('"verb":"guide","state":"applied"');
    // Not running any more: nothing to interrupt.
    const late = await autoloop(["control", "interrupt", "g1"], { cwd: dir });
    expect(late.exitCode).toBe(1);
  }, 60_000);
});

describe("control files in the public autoloop's format", () => {
  it("writes a respond request as the public autoloop does, and reads its private folder only", async () => {
    const dir = tempDir();
    const run = autoloop(["run", askingPreset(dir), "Ship it", "--run-id", "p1"], { cwd: dir });
    await waitFor(pendingIn(dir), "the question");
    // The public autoloop's `control respond` line, byte for byte (no `by`), in the run's own
    // `control/`: a file its agent can write, so our harness does not take it from there.
    const publicLine = `${JSON.stringify({
      id: "ctl_mflx2k3a_q8w1e2",
      runId: "p1",
      requestedAt: new Date().toISOString(),
      verb: "respond",
      reason: "respond",
      payload: { questionId: "ask_p1_1", answer: "Ship it" },
    })}\n`;
    mkdirSync(join(dir, ".autoloop", "runs", "p1", "control"), { recursive: true });
    writeFileSync(join(dir, ".autoloop", "runs", "p1", "control", "requests.jsonl"), publicLine);
    const privateControl = join(privateRunDir(dir, "p1"), "control");
    // A line of that format in the private folder (where `autoloop control respond` writes) is
    // taken: the answer journaled is that one, though the other was written first.
    writeFileSync(
      join(privateControl, "requests.jsonl"),
      publicLine.replace("Ship it", "Ship 1.2"),
    );
    expect((await run).exitCode).toBe(0);
    const taken = journalOf(dir).find((r) => r.topic === "ask.answered");
    expect(field(taken, "answer")).toBe("Ship 1.2");
    const status = JSON.parse(
      readFileSync(join(privateControl, "status.jsonl"), "utf8").trim().split("\n")[0]!,
    );
    expect(status).toMatchObject({
      id: "ctl_mflx2k3a_q8w1e2",
      runId: "p1",
      verb: "respond",
      state: "applied",
      detail: "delivered to human-ask",
    });

    // A run of the public autoloop waiting on a question (its registry and journal lines).
    const pub = tempDir();
    const state = join(pub, ".autoloop", "runs", "swift-otter");
    mkdirSync(state, { recursive: true });
    const journal = join(pub, ".autoloop", "journal.jsonl");
    writeFileSync(
      join(pub, ".autoloop", "registry.jsonl"),
      `${JSON.stringify({ run_id: "swift-otter", status: "running", preset: "autocode", state_dir: state, journal_file: journal, pid: process.pid, iteration: 2 })}\n`,
    );
    writeFileSync(
      journal,
      '{"run": "swift-otter", "iteration": "2", "topic": "human.ask", "ts": "2026-11-27T08:00:00.000Z", "v": 1, "payload": "Postgres or SQLite?", "source": "agent"}\n' +
        '{"run": "swift-otter", "iteration": "2", "topic": "ask.pending", "ts": "2026-11-27T08:00:00.010Z", "v": 1, "fields": {"question_id": "ask_swift-otter_2", "question": "Postgres or SQLite?"}}\n',
    );
    // An answer goes only to a run of ours (its launch record says where it reads): one
    // written into another harness's folder, which its agent writes too, could be lost.
    const answered = await autoloop(
      ["control", "respond", "swift", "ask_swift-otter_2", "SQLite"],
      { cwd: pub },
    );
    expect(answered.exitCode).toBe(1);
    expect(answered.stderr).toContain("has no launch record");
    expect(existsSync(join(state, "control", "requests.jsonl"))).toBe(false);
    // Guidance to it is written in the public autoloop's request format.
    const guided = await autoloop(
      ["control", "guide", "swift", "Use", "SQLite", "--no-interrupt"],
      { cwd: pub },
    );
    expect(guided.exitCode, guided.stderr).toBe(0);
    const line = readFileSync(join(state, "control", "requests.jsonl"), "utf8").trim();
    const request = JSON.parse(line);
    expect(Object.keys(request)).toEqual([
      "id",
      "runId",
      "requestedAt",
      "verb",
      "reason",
      "payload",
      "by",
    ]);
    expect(request).toMatchObject({
      runId: "swift-otter",
      verb: "guide",
      reason: "guide",
      payload: { message: "Use SQLite", interrupt: false },
    });
    expect(request.id).toMatch(/^ctl_[0-9a-z]+_[0-9a-z]{6}$/);
  }, 30_000);
});

describe("autoloop resume", () => {
  it("goes on with a stopped run from where it stopped, and refuses what cannot resume", async () => {
    const dir = tempDir();
    const env = { AUTOLOOP_DEMO_DELAY_MS: "0" };
    const first = await autoloop(
      ["run", "demo", "Ship it (stuck)", "--run-id", "rs1", "--max-iterations", "2", "--quiet"],
      { cwd: dir, env },
    );
    expect(first.exitCode).toBe(3);
    const resumed = await autoloop(["resume", "rs", "--add-iterations", "2"], { cwd: dir, env });
    expect(resumed.exitCode, resumed.stderr).toBe(0);
    expect(resumed.stdout).toBe(
      "resumed rs1 from iteration 3 (was: max_iterations); stop_reason=max_iterations iterations=4 new_max_iterations=4",
    );
    const journal = journalOf(dir);
    expect(topics(journal).filter((t) => t === "loop.start")).toHaveLength(1);
    const resume = journal.find((r) => r.topic === "loop.resume")!;
    expect(resume.iteration).toBeUndefined();
    expect(resume.shape === "system" && resume.fields).toEqual({
      resumed_from_iteration: "3",
      previous_stop_reason: "max_iterations",
      add_iterations: "2",
      new_max_iterations: "4",
    });
    expect(journal.filter((r) => r.topic === "iteration.start").map((r) => r.iteration)).toEqual([
      "1",
      "2",
      "3",
      "4",
    ]);

    const done = await autoloop(["run", "demo", "Write it", "--run-id", "ok1", "--quiet"], {
      cwd: dir,
      env,
    });
    expect(done.exitCode).toBe(0);
    const completed = await autoloop(["resume", "ok1"], { cwd: dir });
    expect(completed.exitCode).toBe(2);
    expect(completed.stderr).toContain("error: run ok1 already completed; cannot resume");
    expect((await autoloop(["resume", "nope"], { cwd: dir })).exitCode).toBe(2);
    expect((await autoloop(["resume"], { cwd: dir })).exitCode).toBe(1);
  }, 60_000);
});

describe("what the control plane trusts", () => {
  it("never signals a pid that is not a harness, and keeps requests inside the journal's folder", async () => {
    const dir = tempDir();
    const sleeper = execa("sleep", ["30"]);
    const state = join(dir, ".autoloop", "runs", "x1");
    mkdirSync(state, { recursive: true });
    const journal = join(dir, ".autoloop", "journal.jsonl");
    writeFileSync(journal, "");
    const record = (extra: object) =>
      `${JSON.stringify({ run_id: "x1", status: "running", state_dir: state, journal_file: "/etc/passwd", pid: sleeper.pid, ...extra })}\n`;
    writeFileSync(join(dir, ".autoloop", "registry.jsonl"), record({}));
    const guided = await autoloop(["control", "guide", "x1", "go on"], { cwd: dir });
    expect(guided.exitCode, guided.stderr).toBe(0);
    expect(guided.stdout).toContain("(the run reads it at its next iteration)");
    expect(sleeper.exitCode).toBeNull(); // not signalled
    // The guidance went to the journal looked up, not the registry's journal_file.
    expect(readFileSync(journal, "utf8")).toContain('"topic": "operator.guidance"');
    // A state dir outside the journal's folder is refused, nothing written.
    writeFileSync(join(dir, ".autoloop", "registry.jsonl"), record({ state_dir: "/tmp" }));
    const outside = await autoloop(["control", "interrupt", "x1"], { cwd: dir });
    expect(outside.exitCode).toBe(1);
    expect(outside.stderr).toContain("has no state_dir inside");
    sleeper.kill();
    await sleeper.catch(() => undefined);
  }, 30_000);

  it("reopens a resumed run's questions, and keeps guidance written while a prompt was built", () => {
    const rec = (topic: string, fields: Record<string, string> = {}) =>
      ({
        shape: "system",
        run: "r",
        iteration: "1",
        topic,
        ts: "2026-11-27T00:00:00.000Z",
        v: 1,
        fields,
      }) as JournalRecord;
    const { pending, ended } = questionState(
      [
        rec("loop.stop", { reason: "max_iterations" }),
        rec("loop.resume"),
        rec("ask.pending", { question_id: "ask_r_4", question: "ok?" }),
      ],
      "r",
    );
    expect(ended).toBe(false);
    expect(pending?.questionId).toBe("ask_r_4");

    const dir = tempDir();
    const file = join(dir, "journal.jsonl");
    const line = (topic: string, payload: string, source: string) =>
      `{"run": "r", "topic": "${topic}", "ts": "2026-11-27T00:00:00.000Z", "v": 1, "payload": "${payload}", "source": "${source}"}\n`;
    writeFileSync(
      file,
      line("operator.guidance", "first", "operator") +
        line("operator.guidance", "second, written meanwhile", "operator") +
        line("operator.guidance.consumed", "Consumed 1 guidance message(s)", "harness"),
    );
    const view = new RunView(file, "r", 0);
    view.refresh();
    expect(view.guidance).toEqual(["second, written meanwhile"]);
  });
});
