// `autoloop resume` and dynamic chains: a resumed run that completes acts on its requests not
// acted on yet (those of its earlier, stopped part were refused then); a run that completed
// before its harness acted on a request (killed in between) resumes to act on it, and only once.
import { appendFileSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { autoloop, cleanupTempDirs, tempDir } from "../helpers/cli.js";
import { field, journalOf } from "../helpers/journal.js";

afterEach(cleanupTempDirs);

function preset(dir: string, name: string, script: string, extra = ""): string {
  mkdirSync(join(dir, name), { recursive: true });
  writeFileSync(
    join(dir, name, "autoloops.toml"),
    `[event_loop]\nmax_iterations = 4\nstall_iterations = 0\n[backend]\ncommand = "sh"\nargs = ["-c", ${JSON.stringify(script)}]\nprompt_mode = "file"\n${extra}`,
  );
  return join(dir, name);
}

// Iteration 1 asks for a chain but does not complete; iteration 2 asks again and completes.
const LEAD = `"$AUTOLOOP_BIN" emit chain.spawn '{"preset": "follow", "objective": "check it"}'
[ "$AUTOLOOP_ITERATION" = 2 ] && "$AUTOLOOP_BIN" emit task.complete done
exit 0`;

describe("autoloop resume and chain.spawn", () => {
  it("acts on the requests a run had not acted on, once it completes", async () => {
    const presets = tempDir("autoloop-presets-");
    const work = tempDir("autoloop-spawn-resume-");
    const lead = preset(
      presets,
      "lead",
      LEAD,
      '[chain_spawn]\npresets = ["follow"]\nmax_depth = 1\nmax_children = 3\n',
    );
    preset(presets, "follow", '"$AUTOLOOP_BIN" emit task.complete done');
    const first = await autoloop(
      ["run", lead, "ship", "--run-id", "root", "--max-iterations", "1"],
      {
        cwd: work,
      },
    );
    expect(first.exitCode, first.stderr).toBe(3);
    const refused = journalOf(work).filter((r) => r.topic === "chain.spawn.refused");
    expect(refused.map((r) => field(r, "reason"))).toEqual(["parent_not_completed"]);
    const resumed = await autoloop(["resume", "root", "--add-iterations", "3"], { cwd: work });
    expect(resumed.exitCode, resumed.stderr).toBe(0);
    const spawns = () =>
      journalOf(work)
        .filter((r) => r.topic === "chain.spawn" && r.shape === "system")
        .map((r) => field(r, "chain_id"));
    expect(spawns()).toEqual(["root-spawn-1"]);
    expect(
      journalOf(work).some((r) => r.run === "root-spawn-1" && r.topic === "chain.complete"),
    ).toBe(true);

    // Completed, then a request its harness did not get to (as if it was killed in between).
    appendFileSync(
      join(work, ".autoloop/journal.jsonl"),
      `${JSON.stringify({ run: "root", iteration: "2", topic: "chain.spawn", ts: "2026-01-01T00:00:00.000Z", v: 1, payload: '{"preset": "follow"}', source: "agent" })}\n`,
    );
    const pending = await autoloop(["resume", "root"], { cwd: work });
    expect(pending.exitCode, pending.stderr).toBe(0);
    expect(pending.stdout).toContain("root-spawn-2=completed");
    expect(spawns()).toEqual(["root-spawn-1", "root-spawn-2"]);
    // No iteration ran again.
    expect(
      journalOf(work).filter((r) => r.run === "root" && r.topic === "iteration.start"),
    ).toHaveLength(2);
    const again = await autoloop(["resume", "root"], { cwd: work });
    expect(again.exitCode).toBe(2);
    expect(again.stderr).toContain("already completed");
  }, 90_000);
});
