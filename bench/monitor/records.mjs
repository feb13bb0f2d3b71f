// Realistic journal records for the monitor benchmarks: the harness's topics and fields
// (see `autoloop run`), ASCII and non-ASCII outputs, whole projects with tasks and registry.
import { spawn } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";

export const ASCII_OUTPUTS = [
  "Ran the test suite: 412 passed, 0 failed (31.2 s).\nUpdated src/parser.ts to accept trailing commas; added two cases to test/parser.test.ts.\nNext: the error message for an unterminated string still names the wrong column.",
  "Read the failing CI log. The flake is in test/daemon.test.ts: it sleeps 100 ms instead of waiting for the 'fired' event. Replaced the sleep with waitFor(). 3 runs green locally.",
  "$ npm run lint\n> biome check .\nChecked 214 files in 96ms. No fixes applied.\n$ npm test\n Test Files  58 passed (58)\n      Tests  905 passed (905)\n   Duration  41.73s",
  "Refactored the outbox worker into its own file (outbox-worker.ts, 96 lines). No behaviour change; the existing tests cover re-arming after enqueue and after an attempt.",
];
// Non-ASCII as agents write it: typographic punctuation, accents, CJK, emoji.
export const OTHER_OUTPUTS = [
  "✓ 412 tests passed — 0 failed (31.2 s). Café-style naming fixed in the résumé exporter; « guillemets » kept as is.",
  "Übersetzung der Fehlermeldungen ergänzt: „Datei nicht gefunden“. 日本語のメッセージも追加しました。 🚀 Next: review.",
  "Résultat : 3 fichiers modifiés, aucun échec. Прогон тестов завершён успешно — 905 из 905. ✅",
];

export function promptText(run, workDir, iteration, objective) {
  const tool = `${workDir}/.autoloop/runs/${run}/autoloops`;
  return `You are inside an autoloop harness: an event-driven loop that prompts you again until the objective is done.

Context pressure:
- Tasks: 2 open, ${iteration} done (${iteration + 2} total)
- Invalid emits this run: 0
- Task gate refusals this run: 0

Objective:
${objective}

Iteration: ${iteration}/40
Recent event: review.ready
Suggested next roles now: builder
Allowed next events now: (any)
Completion event: task.complete
Completion promise fallback: LOOP_COMPLETE
Required events: (none)
Loop-owned working files belong under: ${workDir}/.autoloop/runs/${run}
Event tool: ${tool}

Current scratchpad:
- iteration ${iteration - 1}: exit 0; emitted review.ready; output: ${ASCII_OUTPUTS[iteration % ASCII_OUTPUTS.length].slice(0, 160)}

Use the event tool to publish an allowed handoff event or the completion event, and to track tasks:
${tool} emit <allowed-topic> "brief handoff summary"
${tool} emit task.complete "brief completion summary"
${tool} task add "work item"    ${tool} task complete task-1    ${tool} task list

Backpressure rule: an event outside the allowed set is rejected and you are asked to re-route.
Completion gate: completion is refused while open (non-soft) tasks remain.
Plain text alone does not publish an event. Prefer the event tool over the stdout completion promise.
`;
}

export const OBJECTIVE = "Fix the flaky daemon tests and make the parser accept trailing commas";
export const OTHER_OBJECTIVE =
  "Corriger les tests instables du démon — « trailing commas » acceptées";

export function loopStart(E, run, workDir, ts) {
  return E.encodeRecord({
    shape: "system",
    run,
    topic: "loop.start",
    ts,
    v: 1,
    fields: {
      run_id: run,
      objective: OBJECTIVE,
      preset: "autocode",
      trigger: "cron",
      created_at: ts,
      project_dir: `${workDir}/presets/autocode`,
      work_dir: workDir,
      backend: "claude",
      backend_args: "[]",
      parent_run_id: "",
      isolation_mode: "run-scoped",
      max_iterations: "40",
      completion_event: "task.complete",
      completion_promise: "LOOP_COMPLETE",
    },
  });
}

/**
 * The `step`-th record (0..4) of iteration `it`: iteration.start, backend.start, an agent
 * event, backend.finish, iteration.finish. `other` puts non-ASCII text in it.
 */
export function iterationRecord(run, workDir, it, step, ts, other) {
  const iteration = String(it);
  const out = (other ? OTHER_OUTPUTS : ASCII_OUTPUTS)[(it + step) % (other ? 3 : 4)];
  const sys = (topic, fields) => ({ shape: "system", run, iteration, topic, ts, v: 1, fields });
  switch (step) {
    case 0:
      return sys("iteration.start", {
        recent_event: "review.ready",
        suggested_roles: "builder",
        allowed_events: "",
        backpressure: "",
        prompt: promptText(run, workDir, it, other ? OTHER_OBJECTIVE : OBJECTIVE),
      });
    case 1:
      return sys("backend.start", {
        backend_kind: "command",
        command: "claude",
        args: "[]",
        prompt_mode: "file",
        timeout_ms: "1800000",
      });
    case 2:
      return {
        shape: "agent",
        run,
        iteration,
        topic: "review.ready",
        ts,
        v: 1,
        payload: out.slice(0, 200 + (it % 5) * 20),
        source: "agent",
      };
    case 3:
      return sys("backend.finish", {
        exit_code: "0",
        timed_out: false,
        output: `${out}\n${out}\n${ASCII_OUTPUTS[it % 4]}`,
      });
    default:
      return sys("iteration.finish", {
        exit_code: "0",
        timed_out: false,
        elapsed_s: `${(60 + (it % 90)).toFixed(3)}`,
        output: out,
      });
  }
}

/** A registry line as the harness writes it (compact JSON), with a live pid. */
export function registryLine(run, workDir, journal, ts, pid) {
  return `${JSON.stringify({
    run_id: run,
    status: "running",
    preset: "autocode",
    objective: OBJECTIVE,
    trigger: "cron",
    project_dir: `${workDir}/presets/autocode`,
    work_dir: workDir,
    state_dir: `${workDir}/.autoloop/runs/${run}`,
    journal_file: journal,
    parent_run_id: "",
    backend: "claude",
    backend_args: [],
    created_at: ts,
    updated_at: ts,
    iteration: "1",
    max_iterations: "40",
    stop_reason: "",
    latest_event: "loop.start",
    isolation_mode: "run-scoped",
    pid,
  })}\n`;
}

let harness;

/**
 * The pid the registries name: a sleeping process whose command line is a harness running a
 * loop (`node …/dist/bin/autoloop.cjs run`), as the monitor requires of a hand-started run's
 * pid before it counts the run as live. One for the whole bench, gone when it exits.
 */
function harnessPid(root) {
  if (harness === undefined) {
    const bin = join(root, "fake-harness", "dist", "bin", "autoloop.cjs");
    mkdirSync(dirname(bin), { recursive: true });
    writeFileSync(bin, "setInterval(() => {}, 1 << 30);\n");
    harness = spawn(process.execPath, [bin, "run"], { stdio: "ignore" });
    harness.unref();
    process.once("exit", () => harness.kill("SIGKILL"));
  }
  return harness.pid;
}

/** A project dir with an (empty) journal, and helpers to start runs in it. */
export function project(E, root, name) {
  const workDir = join(root, "projects", name);
  const journal = join(workDir, ".autoloop", "journal.jsonl");
  mkdirSync(join(workDir, ".autoloop", "runs"), { recursive: true });
  writeFileSync(journal, "");
  let registry = "";
  let lines = "";
  return {
    workDir,
    journal,
    /** Queues a running run: its loop.start and registry line (written by `flush`). */
    startRun(run, ts) {
      registry += registryLine(run, workDir, journal, ts, harnessPid(root));
      lines += `${loopStart(E, run, workDir, ts)}\n`;
    },
    /** A run stuck at its gate needs a tasks file with the open task (else "unknown"). */
    openTask(run, ts) {
      const dir = join(workDir, ".autoloop", "runs", run);
      mkdirSync(dir, { recursive: true });
      const task = {
        type: "task",
        id: "task-1",
        text: "make the parser accept trailing commas",
        status: "open",
        source: "manual",
        created: E.taskTimestamp(new Date(ts)),
        priority: "normal",
        soft: false,
      };
      writeFileSync(join(dir, "tasks.jsonl"), `${E.encodeTaskEntry(task)}\n`);
    },
    flush() {
      writeFileSync(join(workDir, ".autoloop", "registry.jsonl"), registry, { flag: "a" });
      writeFileSync(journal, lines, { flag: "a" });
      registry = "";
      lines = "";
    },
  };
}

/** Appends the refusal as `autoloop emit` does: a fresh writer, one write, fsync, close. */
export function appendGate(E, journal, run) {
  const writer = new E.JournalWriter(journal);
  try {
    writer.append({
      shape: "system",
      run,
      iteration: "3",
      topic: "task.gate",
      ts: new Date().toISOString(),
      v: 1,
      fields: { blocked_topic: "task.complete", open_tasks: "task-1" },
    });
  } finally {
    writer.close();
  }
}
