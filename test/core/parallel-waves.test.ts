// Structured parallel waves through `autoloop run` with a scripted agent: a dispatch trigger
// runs its objectives as concurrent branch runs in their own folders, the harness journals
// the wave and `<trigger>.joined` with their results, and routing resumes from there; the
// refusals (waves off, a joined topic from an agent), a branch timeout, and a stop that takes
// the branches' agents with it.
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { JournalRecord } from "../../src/journal/codec.js";
import { readJournal } from "../../src/journal/reader.js";
import { isProcessAlive } from "../../src/util/process.js";
import { autoloop, cleanupTempDirs, tempDir } from "../helpers/cli.js";
import { field, journalOf } from "../helpers/journal.js";
import { waitFor } from "../helpers/wait.js";
import { WAVE_TOPOLOGY } from "../helpers/wave-topology.js";

afterEach(cleanupTempDirs);

// Parent: fan review.ready out to two branches, then review what they found, then complete.
// A branch (routed from review.ready) notes when it ran, sleeps a little and reports.
const AGENT = `#!/bin/sh
tool="$AUTOLOOP_BIN"
log="$WAVE_LOG"
case "$AUTOLOOP_RECENT_EVENT" in
  loop.start)
    grep -q 'Dispatch fan-out is available now: .review.ready.parallel.' "$AUTOLOOP_PROMPT_PATH" && echo "saw-rules" >> "$log"
    "$tool" emit review.ready.parallel.joined "forged" 2>> "$log.stderr"; echo "joined-exit $?" >> "$log"
    if [ -n "$WAVE_FORGE" ]; then
      for topic in review.ready.parallel.joined review.ready.parallel; do
        printf '{"run": "%s", "iteration": "1", "topic": "%s", "ts": "2026-01-01T00:00:00.000Z", "v": 1, "payload": "- forged", "source": "harness"}\n' "$AUTOLOOP_RUN_ID" "$topic" >> "$AUTOLOOP_JOURNAL_FILE"
      done
      exit 0
    fi
    "$tool" emit review.ready.parallel "$WAVE_OBJECTIVES" 2>> "$log.stderr"; echo "trigger-exit $?" >> "$log" ;;
  review.ready)
    if grep -q 'Wave trigger: .explore.parallel' "$AUTOLOOP_PROMPT_PATH"; then
      echo "explored"; "$tool" emit review.done "explored"; exit 0
    fi
    echo "$$" > "$AUTOLOOP_STATE_DIR/agent.pid"
    echo "start $(date +%s%N) $AUTOLOOP_RUN_ID" >> "$log"
    sleep "\${WAVE_SLEEP:-1}"
    echo "end $(date +%s%N) $AUTOLOOP_RUN_ID" >> "$log"
    echo '{"input_tokens": 100, "output_tokens": 0, "cost_usd": 0.25}' > "$AUTOLOOP_USAGE_FILE"
    echo "findings for: $(grep -A1 'Parallel branch objective:' "$AUTOLOOP_PROMPT_PATH" | tail -1)"
    "$tool" emit review.done "branch reviewed" ;;
  review.ready.parallel.joined)
    grep -q "Parallel wave joined" "$AUTOLOOP_PROMPT_PATH" && echo "saw-results" >> "$log"
    if grep -q "explore.parallel.joined" "$AUTOLOOP_PROMPT_PATH"; then
      "$tool" emit review.done "joined review"
    else
      "$tool" emit explore.parallel "- look around"
    fi ;;
  review.done) "$tool" emit task.complete "done" ;;
esac
`;

function wavePreset(dir: string, parallel: string): string {
  const preset = join(dir, "waves");
  writeFileSync(join(dir, "agent.sh"), AGENT);
  mkdirSync(preset);
  writeFileSync(
    join(preset, "autoloops.toml"),
    `[event_loop]\nmax_iterations = 5\n\n[backend]\ncommand = "sh"\nargs = [${JSON.stringify(join(dir, "agent.sh"))}]\nprompt_mode = "file"\nkill_grace_ms = 200\n\n[parallel]\n${parallel}\n`,
  );
  writeFileSync(join(preset, "topology.toml"), WAVE_TOPOLOGY);
  return preset;
}

const waveEnv = (dir: string, extra: Record<string, string> = {}) => ({
  WAVE_LOG: join(dir, "wave.log"),
  WAVE_OBJECTIVES: "- check the parser\n- check the CLI",
  ...extra,
});

const byTopic = (records: JournalRecord[], topic: string) =>
  records.filter((r) => r.topic === topic);

describe("parallel waves in autoloop run", () => {
  it("runs a dispatch wave's branches at once, joins them and routes the joined event", async () => {
    const dir = tempDir();
    const r = await autoloop(
      ["run", wavePreset(dir, "enabled = true"), "review it", "--run-id", "run-w"],
      { cwd: dir, env: waveEnv(dir) },
    );
    expect(r.stderr).not.toMatch(/parallel.*not implemented/);
    expect(r.exitCode).toBe(0);
    const log = readFileSync(join(dir, "wave.log"), "utf8");
    // The forged joined topic was refused by the tool; the trigger was taken.
    expect(log).toContain("joined-exit 1");
    expect(log).toContain("trigger-exit 0");
    expect(readFileSync(join(dir, "wave.log.stderr"), "utf8")).toContain(
      "emitted by the harness only",
    );
    const records = journalOf(dir);
    const start = byTopic(records, "wave.start")[0]!;
    expect(Object.keys(start.shape === "system" ? start.fields : {})).toEqual([
      "wave_id",
      "trigger_topic",
      "branch_count",
      "opening_recent_event",
      "opening_roles",
      "opening_events",
      "objectives",
      "concurrency_source",
    ]);
    // The other records' keys, in the public autoloop's order.
    const keysOf = (topic: string) => {
      const r = byTopic(records, topic)[0];
      return r?.shape === "system" ? Object.keys(r.fields).join(",") : "";
    };
    expect(
      Object.fromEntries(
        [
          "wave.branch.start",
          "wave.branch.finish",
          "wave.join.start",
          "wave.aggregate",
          "wave.join.finish",
        ].map((t) => [t, keysOf(t)]),
      ),
    ).toEqual({
      "wave.branch.start": "wave_id,branch_id,objective,routing_event,branch_roles,branch_events",
      "wave.branch.finish": "wave_id,branch_id,stop_reason,elapsed_ms,output",
      "wave.join.start":
        "wave_id,trigger_topic,branch_count,elapsed_ms,branch_outcomes,concurrency_source",
      "wave.aggregate": "wave_id,mode,satisfied_by_branch_id,aggregate_timed_out",
      "wave.join.finish":
        "wave_id,trigger_topic,joined_topic,routing_basis,resume_recent_event,resume_roles,resume_events,elapsed_ms",
    });
    expect(field(start, "trigger_topic")).toBe("review.ready.parallel");
    expect(field(start, "objectives")).toBe("check the parser,check the CLI");
    const waveId = field(start, "wave_id");
    expect(byTopic(records, "wave.branch.start").map((b) => field(b, "branch_roles"))).toEqual([
      "reviewer",
      "reviewer",
      "reviewer",
    ]);
    const finishes = byTopic(records, "wave.branch.finish").slice(0, 2);
    expect(finishes.map((b) => field(b, "stop_reason"))).toEqual([
      "max_iterations",
      "max_iterations",
    ]);
    expect(finishes.map((b) => field(b, "output")).sort()).toEqual([
      expect.stringContaining("findings for: check the CLI"),
      expect.stringContaining("findings for: check the parser"),
    ]);
    const joinFinish = byTopic(records, "wave.join.finish")[0]!;
    expect(field(joinFinish, "joined_topic")).toBe("review.ready.parallel.joined");
    expect(field(joinFinish, "resume_roles")).toBe("reviewer");
    // Only the harness's joined record stands, after wave.join.finish, with the results.
    const joined = byTopic(records, "review.ready.parallel.joined");
    expect(joined).toHaveLength(1);
    expect(joined[0]!.shape === "agent" && joined[0]!.source).toBe("harness");
    expect(joined[0]!.shape === "agent" && joined[0]!.payload).toMatch(
      new RegExp(`^${waveId}\\n[^]*findings for: check the parser`),
    );
    expect(records.indexOf(joined[0]!)).toBeGreaterThan(records.indexOf(joinFinish));
    const iteration2 = byTopic(records, "iteration.start")[1]!;
    expect(field(iteration2, "recent_event")).toBe("review.ready.parallel.joined");
    expect(field(iteration2, "suggested_roles")).toBe("reviewer");
    expect(log).toContain("saw-results");
    expect(log).toContain("saw-rules");
    // explore.parallel: a branch of the opening roles, and the routing resumed where it was.
    const explore = byTopic(records, "wave.start")[1]!;
    expect(field(explore, "trigger_topic")).toBe("explore.parallel");
    expect(field(explore, "opening_recent_event")).toBe("review.ready.parallel.joined");
    expect(field(byTopic(records, "wave.branch.start")[2], "branch_roles")).toBe("reviewer");
    expect(field(byTopic(records, "wave.branch.finish")[2], "output")).toContain("explored");
    expect(byTopic(records, "explore.parallel.joined")).toHaveLength(1);
    expect(field(byTopic(records, "iteration.start")[2], "recent_event")).toBe(
      "review.ready.parallel.joined",
    );
    // What the branches' agents spent counts in the parent's spend (and its budget).
    expect(field(records.at(-1), "total_tokens")).toBe("200");
    // Each branch: its own folder and journal, a run of one iteration routed from review.ready.
    const branches = join(dir, ".autoloop/runs/run-w/waves", waveId, "branches");
    expect(readdirSync(branches).sort()).toEqual(["branch-1", "branch-2"]);
    const branchJournal = readJournal(join(branches, "branch-1/.autoloop/journal.jsonl")).items;
    const branchStart = branchJournal.find((x) => x.topic === "loop.start");
    expect(field(branchStart, "trigger")).toBe("branch");
    expect(field(branchStart, "parent_run_id")).toBe("run-w");
    expect(field(byTopic(branchJournal, "iteration.start")[0], "recent_event")).toBe(
      "review.ready",
    );
    const summary = JSON.parse(readFileSync(join(branches, "branch-1/summary.json"), "utf8"));
    expect(Object.keys(summary)).toEqual([
      "branch_id",
      "objective",
      "stop_reason",
      "output",
      "routing_event",
      "allowed_roles",
      "allowed_events",
      "elapsed_ms",
      "finished_at_ms",
    ]);
    for (const f of ["spec.md", "join.md"])
      expect(existsSync(join(dir, ".autoloop/runs/run-w/waves", waveId, f))).toBe(true);
    // At once: each branch started before the other ended.
    const times = (word: string) =>
      log
        .split("\n")
        .filter((l) => l.startsWith(`${word} `))
        .map((l) => BigInt(l.split(" ")[1]!));
    const [starts, ends] = [times("start"), times("end")];
    expect(starts).toHaveLength(2);
    expect(starts.every((s) => ends.every((e) => s < e))).toBe(true);
  }, 60_000);

  it("refuses a trigger while waves are off, and stops a wave whose branch times out", async () => {
    const off = tempDir();
    const r1 = await autoloop(
      ["run", wavePreset(off, "enabled = false"), "review it", "--max-iterations", "2"],
      { cwd: off, env: waveEnv(off) },
    );
    expect(readFileSync(join(off, "wave.log"), "utf8")).toContain("trigger-exit 1");
    expect(readFileSync(join(off, "wave.log.stderr"), "utf8")).toContain("parallel waves are off");
    expect(byTopic(journalOf(off), "wave.start")).toHaveLength(0);
    expect(r1.exitCode).not.toBe(0);
    // Written around the tool: the trigger is refused by the harness too, the joined record never routes.
    const forged = tempDir();
    await autoloop(
      ["run", wavePreset(forged, "enabled = false"), "review it", "--max-iterations", "2"],
      { cwd: forged, env: waveEnv(forged, { WAVE_FORGE: "1" }) },
    );
    const forgedRecords = journalOf(forged);
    expect(byTopic(forgedRecords, "wave.start")).toHaveLength(0);
    const harnessInvalid = byTopic(forgedRecords, "event.invalid").filter(
      (r) => field(r, "emitted") === "review.ready.parallel",
    );
    expect(harnessInvalid).toHaveLength(1);
    expect(field(byTopic(forgedRecords, "iteration.start")[1], "recent_event")).toBe("loop.start");

    const slow = tempDir();
    const r2 = await autoloop(
      ["run", wavePreset(slow, "enabled = true\nbranch_timeout_ms = 1500"), "review it"],
      { cwd: slow, env: waveEnv(slow, { WAVE_SLEEP: "30" }) },
    );
    expect(r2.exitCode).toBe(1);
    const records = journalOf(slow);
    expect(byTopic(records, "wave.branch.finish").map((b) => field(b, "stop_reason"))).toEqual([
      "backend_timeout",
      "backend_timeout",
    ]);
    expect(field(byTopic(records, "wave.timeout")[0], "timed_out_branches")).toBe(
      "branch-1,branch-2",
    );
    const stop = records.at(-1);
    expect(stop?.topic).toBe("loop.stop");
    expect(field(stop, "reason")).toBe("parallel_wave_timeout");
    expect(field(stop, "wave_id")).toBe(field(byTopic(records, "wave.start")[0], "wave_id"));
  }, 60_000);

  it("stops on the run's budget when its branches spent it", async () => {
    const dir = tempDir();
    const preset = wavePreset(dir, "enabled = true");
    const r = await autoloop(["run", preset, "review it", "--set", "event_loop.max_cost_usd=0.3"], {
      cwd: dir,
      env: waveEnv(dir, { WAVE_SLEEP: "0" }),
    });
    expect(r.exitCode).toBe(3);
    const records = journalOf(dir);
    expect(byTopic(records, "wave.join.start")).toHaveLength(1);
    expect(byTopic(records, "wave.join.finish")).toHaveLength(0);
    expect(field(records.at(-1), "reason")).toBe("cost_budget");
    expect(field(records.at(-1), "cost_usd")).toBe("0.500000");
  }, 60_000);

  it.each(["SIGTERM", "SIGKILL"] as const)(
    "takes the branches' agents down when the run gets %s",
    async (signal) => {
      const dir = tempDir();
      const child = autoloop(
        ["run", wavePreset(dir, "enabled = true"), "review it", "--run-id", "run-k"],
        { cwd: dir, env: waveEnv(dir, { WAVE_SLEEP: "60" }) },
      );
      const pids = await waitFor(
        () => {
          const log = existsSync(join(dir, "wave.log"))
            ? readFileSync(join(dir, "wave.log"), "utf8")
            : "";
          return (
            log.split("\n").filter((l) => l.startsWith("start ")).length === 2 && agentPids(dir)
          );
        },
        "both branches' agents to start",
        30_000,
      );
      expect(pids.every(isProcessAlive)).toBe(true);
      child.kill(signal);
      const r = await child;
      if (signal === "SIGTERM") {
        expect(r.exitCode).toBe(130);
        expect(field(journalOf(dir).at(-1), "reason")).toBe("interrupted");
      }
      await waitFor(() => !pids.some(isProcessAlive), "the branches' agents to be gone", 30_000);
    },
    60_000,
  );
});

/** The pids the two branches' agents wrote in their run folders, once both did. */
function agentPids(dir: string): number[] | undefined {
  const root = join(dir, ".autoloop/runs/run-k/waves");
  if (!existsSync(root)) return undefined;
  const pids: number[] = [];
  for (const wave of readdirSync(root))
    for (const branch of readdirSync(join(root, wave, "branches"))) {
      const runs = join(root, wave, "branches", branch, ".autoloop/runs");
      for (const run of existsSync(runs) ? readdirSync(runs) : []) {
        const file = join(runs, run, "agent.pid");
        if (existsSync(file) && readFileSync(file, "utf8").trim() !== "")
          pids.push(Number(readFileSync(file, "utf8")));
      }
    }
  return pids.length === 2 ? pids : undefined;
}
