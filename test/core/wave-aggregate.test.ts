// `parallel.aggregate` through `autoloop run`: a `first_success` wave joins on its fast branch
// and cancels the slow one; a `timeout` wave cuts the slow one at its deadline and joins on
// what succeeded. Both journal the public stop reasons and `wave.aggregate` facts. And
// `autoloop resume` of a run that stopped right after its join routes from the joined event.
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { JournalRecord } from "../../src/journal/codec.js";
import { autoloop, cleanupTempDirs, tempDir } from "../helpers/cli.js";
import { field, journalOf } from "../helpers/journal.js";
import { WAVE_TOPOLOGY } from "../helpers/wave-topology.js";

afterEach(cleanupTempDirs);

// The wave's "slow" branch sleeps far past the test; its "fast" one reports at once.
const AGENT = `#!/bin/sh
case "$AUTOLOOP_RECENT_EVENT" in
  loop.start) "$AUTOLOOP_BIN" emit review.ready.parallel "- fast
- slow" ;;
  review.ready)
    grep -qx slow "$AUTOLOOP_PROMPT_PATH" && sleep 60
    echo "reviewed"; "$AUTOLOOP_BIN" emit review.done "ok" ;;
  review.ready.parallel.joined) "$AUTOLOOP_BIN" emit review.done "joined" ;;
  review.done) "$AUTOLOOP_BIN" emit task.complete "done" ;;
esac
`;

function aggregatePreset(dir: string, aggregate: string): string {
  const preset = join(dir, "agg");
  mkdirSync(preset);
  writeFileSync(join(dir, "agent.sh"), AGENT);
  writeFileSync(
    join(preset, "autoloops.toml"),
    `[event_loop]\nmax_iterations = 4\n\n[backend]\ncommand = "sh"\nargs = [${JSON.stringify(join(dir, "agent.sh"))}]\nprompt_mode = "file"\nkill_grace_ms = 200\n\n[parallel]\nenabled = true\n\n[parallel.aggregate]\n${aggregate}\n`,
  );
  writeFileSync(join(preset, "topology.toml"), WAVE_TOPOLOGY);
  return preset;
}

const ofTopic = (records: JournalRecord[], topic: string) =>
  records.filter((r) => r.topic === topic);

describe("parallel.aggregate modes", () => {
  it.each([
    ['mode = "first_success"', "wave_cancelled_first_success", "branch-1", "false"],
    ['mode = "timeout"\ntimeout_ms = 1500', "wave_aggregate_timeout", "", "true"],
  ])(
    "%s joins on the fast branch and cuts the slow one",
    async (aggregate, cut, by, late) => {
      const dir = tempDir();
      const began = Date.now();
      const r = await autoloop(["run", aggregatePreset(dir, aggregate), "review it"], { cwd: dir });
      expect(r.exitCode, r.stderr).toBe(0);
      expect(Date.now() - began).toBeLessThan(40_000);
      const records = journalOf(dir);
      expect(
        ofTopic(records, "wave.branch.finish").map((b) => [
          field(b, "branch_id"),
          field(b, "stop_reason"),
        ]),
      ).toEqual([
        ["branch-1", "max_iterations"],
        ["branch-2", cut],
      ]);
      const agg = ofTopic(records, "wave.aggregate")[0];
      expect(agg?.shape === "system" && agg.fields).toEqual({
        wave_id: field(ofTopic(records, "wave.start")[0], "wave_id"),
        mode: aggregate.split('"')[1],
        satisfied_by_branch_id: by,
        aggregate_timed_out: late,
      });
      expect(ofTopic(records, "review.ready.parallel.joined")).toHaveLength(1);
      expect(field(records.at(-1), "reason")).toBe("completion_event");
    },
    60_000,
  );
});

describe("autoloop resume after a join", () => {
  it("routes the joined event journaled before the stop", async () => {
    const dir = tempDir();
    const preset = aggregatePreset(dir, 'mode = "first_success"');
    const first = await autoloop(
      ["run", preset, "review it", "--run-id", "run-j", "--max-iterations", "1"],
      { cwd: dir },
    );
    expect(first.exitCode, first.stderr).toBe(3);
    expect(ofTopic(journalOf(dir), "review.ready.parallel.joined")).toHaveLength(1);
    const resumed = await autoloop(["resume", "run-j", "--add-iterations", "3"], { cwd: dir });
    expect(resumed.exitCode, resumed.stderr).toBe(0);
    const starts = ofTopic(journalOf(dir), "iteration.start");
    expect(field(starts[1], "recent_event")).toBe("review.ready.parallel.joined");
    expect(field(starts[1], "suggested_roles")).toBe("reviewer");
  }, 60_000);
});
