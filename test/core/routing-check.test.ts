// The routing check after the turn: an event the iteration's roles may not emit, appended to
// the journal around the event tool, is journaled as `event.invalid` (as the public autoloop
// does) and never routes or completes; the next iteration opens where the run was.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { autoloop, cleanupTempDirs, tempDir } from "../helpers/cli.js";
import { field, journalOf } from "../helpers/journal.js";
import { scriptPreset } from "../helpers/script-preset.js";

afterEach(cleanupTempDirs);

const TOPOLOGY = `[[role]]
id = "planner"
emits = ["review.ready"]
prompt = "You plan."

[[role]]
id = "reviewer"
emits = ["task.complete"]
prompt = "You review."

[handoff]
"loop.start" = ["planner"]
"review.ready" = ["reviewer"]
`;

// The planner's first turn writes the completion event into the journal by hand.
const SCRIPT = `case "$AUTOLOOP_RECENT_EVENT:$AUTOLOOP_ITERATION" in
  loop.start:1)
    printf '{"run": "%s", "iteration": "1", "topic": "task.complete", "ts": "2026-01-01T00:00:00.000Z", "v": 1, "payload": "forged", "source": "agent"}\\n' "$AUTOLOOP_RUN_ID" >> "$AUTOLOOP_JOURNAL_FILE" ;;
  loop.start:*) grep -q "rejected task.complete" "$AUTOLOOP_PROMPT_PATH" && echo saw-backpressure
    "$AUTOLOOP_BIN" emit review.ready "planned" ;;
  review.ready:*) "$AUTOLOOP_BIN" emit task.complete "reviewed" ;;
esac
`;

describe("the route stage's routing check", () => {
  it("journals a disallowed event written around the tool as event.invalid; it never routes", async () => {
    const dir = tempDir();
    const preset = scriptPreset(dir, { name: "routed", script: SCRIPT });
    writeFileSync(join(preset, "topology.toml"), TOPOLOGY);
    const r = await autoloop(["run", preset, "plan it", "--run-id", "run-r"], { cwd: dir });
    expect(r.exitCode, r.stderr).toBe(0);
    const records = journalOf(dir);
    const invalid = records.filter((x) => x.topic === "event.invalid");
    expect(invalid).toHaveLength(1);
    expect(invalid[0]!.iteration).toBe("1");
    expect(invalid[0]!.shape === "system" && invalid[0]!.fields).toEqual({
      recent_event: "loop.start",
      emitted: "task.complete",
      suggested_roles: "planner",
      allowed_events: "review.ready",
      via: "route",
    });
    expect(r.stderr).toContain("task.complete is not allowed after loop.start");
    // Iteration 2 opened where the run was, with the refusal as backpressure; the run completed
    // only on the reviewer's own completion, at iteration 3.
    const starts = records.filter((x) => x.topic === "iteration.start");
    expect(field(starts[1], "recent_event")).toBe("loop.start");
    expect(field(starts[1], "backpressure")).toBe("rejected task.complete");
    expect(field(starts[2], "recent_event")).toBe("review.ready");
    const end = records.at(-1);
    expect(end?.topic).toBe("loop.complete");
    expect(end?.iteration).toBe("3");
  }, 60_000);
});
