// A hook's `mutate`: its stdout read as the public autoloop reads it (pure), and a
// pre_iteration hook's prompt handed to the agent through `autoloop run` (real processes).
import { chmodSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { parseMutation } from "../../src/harness/preset/hook-mutation.js";
import { autoloop, cleanupTempDirs, tempDir } from "../helpers/cli.js";
import { field, journalOf } from "../helpers/journal.js";

afterEach(cleanupTempDirs);

describe("parseMutation", () => {
  it("reads a prompt from a fenced block, a JSON object's prompt, or the whole stdout", () => {
    const fenced = "log line\n<<<AUTOLOOP_MUTATE>>>\nNew prompt\nline 2\n<<<END>>>\nmore";
    expect(parseMutation(fenced, "prompt")).toEqual({
      kind: "prompt",
      prompt: "New prompt\nline 2",
    });
    expect(parseMutation('{"prompt": "from json"}', "prompt")).toEqual({
      kind: "prompt",
      prompt: "from json",
    });
    expect(parseMutation("  just this  \n", "prompt")).toEqual({
      kind: "prompt",
      prompt: "just this",
    });
    // A JSON object naming no prompt asks nothing of it; one with no known key is plain text.
    expect(parseMutation('{"topic": "x"}', "prompt")).toBeUndefined();
    expect(parseMutation('{"n": 1}', "prompt")).toEqual({ kind: "prompt", prompt: '{"n": 1}' });
    expect(parseMutation(" \n", "prompt")).toBeUndefined();
    expect(parseMutation("anything", "none")).toBeUndefined();
  });

  it("reads an event only from a JSON object's topic and payload", () => {
    expect(parseMutation('{"topic": "review.ready", "payload": "p", "n": 2}', "event")).toEqual({
      kind: "event",
      topic: "review.ready",
      payload: "p",
    });
    expect(parseMutation('{"payload": "only"}', "event")).toEqual({
      kind: "event",
      payload: "only",
    });
    expect(parseMutation("review.ready", "event")).toBeUndefined();
    expect(parseMutation("<<<AUTOLOOP_MUTATE>>>x<<<END>>>", "event")).toBeUndefined();
    expect(parseMutation("{not json", "event")).toBeUndefined();
  });
});

/** A preset in a fresh temp dir: its agent script, `max_iterations` and its hooks' TOML. */
function presetWith(agent: string, maxIterations: number, hooks: string[]) {
  const dir = tempDir();
  const preset = join(dir, "p");
  mkdirSync(preset);
  writeFileSync(join(preset, "agent.sh"), agent);
  chmodSync(join(preset, "agent.sh"), 0o755);
  writeFileSync(
    join(preset, "autoloops.toml"),
    `[event_loop]\nmax_iterations = ${maxIterations}\n[backend]\ncommand = ${JSON.stringify(join(preset, "agent.sh"))}\nprompt_mode = "file"\n${hooks.join("\n")}\n`,
  );
  const env = { AUTOLOOP_OPERATOR_DIR: join(dir, "op"), XDG_CONFIG_HOME: join(dir, "xdg") };
  return { dir, preset, env };
}

/** Keeps each iteration's prompt file; iteration 2 completes. */
const AGENT = `#!/bin/sh
cp "$1" "$AUTOLOOP_PROJECT_DIR/prompt.$AUTOLOOP_ITERATION"
if [ "$AUTOLOOP_ITERATION" = 2 ]; then exec "$AUTOLOOP_BIN" emit task.complete done; fi
`;

describe("mutate = prompt", () => {
  it("a pre_iteration hook's output becomes the agent's prompt; the last one wins, a failed or oversized one changes nothing", async () => {
    const hooks = [
      // Iteration 1: a first mutation, then a later one that wins.
      `[[hook]]\nphase = "pre_iteration"\nmutate = "prompt"\ncommand = 'echo "first $AUTOLOOP_ITERATION"'`,
      `[[hook]]\nphase = "pre_iteration"\nmutate = "prompt"\ncommand = '[ "$AUTOLOOP_ITERATION" = 1 ] || exit 0; echo noise; printf "<<<AUTOLOOP_MUTATE>>>\\nDo the thing\\n<<<END>>>\\n"'`,
      // A failing hook asks nothing, even with output.
      `[[hook]]\nphase = "pre_iteration"\nmutate = "prompt"\ncommand = 'echo failed prompt; exit 3'`,
      // Iteration 2: more than the bound, so the first hook's text stands.
      `[[hook]]\nphase = "pre_iteration"\nmutate = "prompt"\ncommand = '[ "$AUTOLOOP_ITERATION" = 2 ] || exit 0; head -c 70000 /dev/zero | tr "\\\\0" "x"; echo'`,
      // Elsewhere a prompt mutation is ignored.
      `[[hook]]\nphase = "post_iteration"\nmutate = "prompt"\ncommand = "echo ignored"`,
    ];
    const { dir, preset, env } = presetWith(AGENT, 3, hooks);
    const run = await autoloop(["run", preset, "go"], { cwd: dir, env });
    expect(run.exitCode, run.stderr).toBe(0);
    expect(readFileSync(join(dir, "prompt.1"), "utf8")).toBe("Do the thing");
    // Compared by length first: a failure would print the oversized prompt whole.
    expect(readFileSync(join(dir, "prompt.2"), "utf8").length).toBe(7);
    expect(readFileSync(join(dir, "prompt.2"), "utf8")).toBe("first 2");
    expect(run.stderr).toContain(
      "wrote more than 65536 characters: its prompt mutation is ignored",
    );

    const outputs = journalOf(dir).filter((r) => r.topic === "hook.output");
    const mutated = outputs.map((r) => `${field(r, "hook")}@${r.iteration}:${field(r, "mutated")}`);
    expect(mutated).toEqual([
      "pre_iteration@1:prompt",
      "pre_iteration@1:prompt",
      "pre_iteration@1:",
      "pre_iteration@1:",
      "post_iteration@1:",
      "pre_iteration@2:prompt",
      "pre_iteration@2:",
      "pre_iteration@2:",
      "pre_iteration@2:",
      "post_iteration@2:",
    ]);
  });
});

/** Iteration 1 emits two events, every later one the completion. */
const EMITTER = `#!/bin/sh
if [ "$AUTOLOOP_ITERATION" = 1 ]; then
  "$AUTOLOOP_BIN" emit review.ready r && exec "$AUTOLOOP_BIN" emit note.x original
fi
exec "$AUTOLOOP_BIN" emit task.complete done
`;

describe("pre_emit and post_emit", () => {
  it("run by the harness after the turn: a block refuses an event (its route and completion too), mutate = event rewrites one, post_emit follows what stands", async () => {
    const block = `case "$AUTOLOOP_EVENT_TOPIC" in review.ready) echo not yet >&2; exit 1;; task.complete) [ "$AUTOLOOP_ITERATION" = 3 ] || exit 1;; esac`;
    const hooks = [
      `[[hook]]\nphase = "pre_emit"\non_error = "block"\ncommand = '${block}'`,
      `[[hook]]\nphase = "pre_emit"\nmutate = "event"\ncommand = '[ "$AUTOLOOP_EVENT_TOPIC" = note.x ] && echo "{\\"payload\\": \\"was $AUTOLOOP_EVENT_PAYLOAD\\"}" || true'`,
      `[[hook]]\nphase = "post_emit"\ncommand = 'echo "$AUTOLOOP_EVENT_TOPIC=$AUTOLOOP_EVENT_PAYLOAD"'`,
    ];
    const { dir, preset, env } = presetWith(EMITTER, 3, hooks);
    const run = await autoloop(["run", preset, "go"], { cwd: dir, env });
    expect(run.exitCode, run.stderr).toBe(0);

    const records = journalOf(dir);
    const refused = records.filter((r) => r.topic === "event.invalid");
    expect(
      refused.map((r) => `${field(r, "emitted")}@${r.iteration}: ${field(r, "reason")}`),
    ).toEqual([
      "review.ready@1: hook pre_emit failed (exit 1): not yet",
      "note.x@1: rewritten by a pre_emit hook as note.x",
      "task.complete@2: hook pre_emit failed (exit 1): ",
    ]);
    const keys = refused[0]?.shape === "system" ? Object.keys(refused[0].fields) : [];
    expect(keys).toEqual([
      "recent_event",
      "emitted",
      "suggested_roles",
      "allowed_events",
      "via",
      "reason",
    ]);
    const rewritten = records.find((r) => r.shape === "agent" && r.source === "hook");
    expect(rewritten?.shape === "agent" && [rewritten.topic, rewritten.payload]).toEqual([
      "note.x",
      "was original",
    ]);
    // The refused review.ready gives its route back; the rewritten note routes.
    const starts = records.filter((r) => r.topic === "iteration.start");
    expect(starts.map((r) => field(r, "recent_event"))).toEqual(["loop.start", "note.x", "note.x"]);
    const posts = records.filter(
      (r) => r.topic === "hook.output" && field(r, "hook") === "post_emit",
    );
    expect(posts.map((r) => field(r, "output"))).toEqual([
      "note.x=was original",
      "task.complete=done",
    ]);
    const complete = records.find((r) => r.topic === "loop.complete");
    expect(complete?.iteration).toBe("3");
  });
});

describe("a suspending pre_emit", () => {
  it("stops the run with the event refused; resume runs that iteration again", async () => {
    // The hook starts in the work dir: the approval is a file there.
    const { dir, preset, env } = presetWith(
      `#!/bin/sh\nexec "$AUTOLOOP_BIN" emit task.complete done\n`,
      2,
      [
        `[[hook]]\nphase = "pre_emit"\non_error = "suspend"\ncommand = '[ -f approved ] || { echo approval needed >&2; exit 1; }'`,
      ],
    );
    const run = await autoloop(["run", preset, "go"], { cwd: dir, env });
    expect(run.exitCode, run.stderr).toBe(3);
    let records = journalOf(dir);
    const suspend = records.find((r) => r.topic === "hook.suspend");
    expect([field(suspend, "phase"), field(suspend, "resume_iteration")]).toEqual([
      "pre_emit",
      "1",
    ]);
    expect(
      records.filter((r) => r.topic === "event.invalid").map((r) => field(r, "emitted")),
    ).toEqual(["task.complete"]);
    expect(records.some((r) => r.topic === "loop.complete")).toBe(false);

    writeFileSync(join(dir, "approved"), "");
    const runId = records[0]!.run;
    const resumed = await autoloop(["resume", runId], { cwd: dir, env });
    expect(resumed.exitCode, resumed.stderr).toBe(0);
    records = journalOf(dir);
    expect(records.find((r) => r.topic === "loop.complete")?.iteration).toBe("1");
  });
});
