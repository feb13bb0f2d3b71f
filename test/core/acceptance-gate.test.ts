// The acceptance gate through `autoloop run` (real processes): a claimed completion parked,
// checked by the preset's `[acceptance]` commands, held with the failures sent back to the
// agent, accepted once they pass; the public autoloop's records, keys in its order.
import { appendFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { heldGuidance } from "../../src/harness/loop/acceptance.js";
import {
  acceptanceTimeoutMs,
  criterionChecks,
  gateCommands,
} from "../../src/harness/preset/acceptance.js";
import type { JournalRecord } from "../../src/journal/codec.js";
import { autoloop, cleanupTempDirs, tempDir } from "../helpers/cli.js";
import { journalOf } from "../helpers/journal.js";
import { scriptPreset } from "../helpers/script-preset.js";

afterEach(cleanupTempDirs);

/** Every iteration claims completion; told why it was held, it makes ok.txt first. */
function gatedPreset(dir: string, acceptance: string): string {
  const preset = scriptPreset(dir, {
    name: "gated",
    script: `exec "$AUTOLOOP_BIN" emit task.complete claimed`,
    onGuidance: `echo hi > ok.txt`,
  });
  appendFileSync(join(preset, "autoloops.toml"), `\n[acceptance]\n${acceptance}\n`);
  return preset;
}

/** A record as [iteration, topic, fields or payload], keys in the order written. */
const shape = (r: JournalRecord) =>
  r.shape === "system"
    ? [r.iteration, r.topic, Object.entries(r.fields)]
    : [r.iteration, r.topic, r.shape === "agent" ? r.payload : ""];

const GATE_TOPICS = /^(completion\.|acceptance\.|operator\.guidance$|loop\.(complete|stop)$)/;

describe("the acceptance gate", () => {
  it("holds a claim its verify commands refuse, tells the agent why, accepts it once they pass", async () => {
    const dir = tempDir();
    const preset = gatedPreset(
      dir,
      `verify_cmds = ["test -f ok.txt || { echo no ok.txt; exit 3; }", "echo checked"]\ncriteria = ["ok.txt says hi :: grep -q hi ok.txt"]`,
    );
    const run = await autoloop(["run", preset, "Ship it", "--run-id", "r1"], { cwd: dir });
    expect(run.exitCode, run.stderr).toBe(0);
    expect(run.stderr).not.toContain("not implemented");
    const records = journalOf(dir).filter((r) => GATE_TOPICS.test(r.topic));
    const [first, second] = [records.slice(0, 7), records.slice(7)];
    const failing = "test -f ok.txt || { echo no ok.txt; exit 3; }";
    expect(first.map(shape)).toEqual([
      [
        "1",
        "completion.provisional",
        [
          ["state", "awaiting_acceptance"],
          ["reason", "completion_event"],
        ],
      ],
      ["1", "acceptance.start", [["count", "2"]]],
      [
        "1",
        "acceptance.command",
        [
          ["command", failing],
          ["exit_code", "3"],
          ["timed_out", false],
          ["output_tail", "no ok.txt\n"],
        ],
      ],
      [
        "1",
        "acceptance.command",
        [
          ["command", "echo checked"],
          ["exit_code", "0"],
          ["timed_out", false],
          ["output_tail", "checked\n"],
        ],
      ],
      [
        "1",
        "acceptance.result",
        [
          ["passed", false],
          ["failed", "1"],
          ["total", "2"],
        ],
      ],
      ["1", "operator.guidance", expect.stringContaining(`\`${failing}\` exited 3:\nno ok.txt`)],
      [
        "1",
        "completion.held",
        [
          ["state", "held"],
          ["cause", "acceptance"],
        ],
      ],
    ]);
    expect(second.map((r) => r.topic)).toEqual([
      "completion.provisional",
      "acceptance.start",
      "acceptance.command",
      "acceptance.command",
      "acceptance.result",
      "acceptance.criterion",
      "acceptance.intent_result",
      "completion.accepted",
      "loop.complete",
    ]);
    expect(second.slice(5, 8).map(shape)).toEqual([
      [
        "2",
        "acceptance.criterion",
        [
          ["text", "ok.txt says hi"],
          ["check", "grep -q hi ok.txt"],
          ["exit_code", "0"],
        ],
      ],
      [
        "2",
        "acceptance.intent_result",
        [
          ["passed", true],
          ["failed", "0"],
        ],
      ],
      [
        "2",
        "completion.accepted",
        [
          ["state", "accepted"],
          ["human_ack", false],
        ],
      ],
    ]);
  }, 60_000);

  it("times a command out (exit 124); a claim held at the last iteration ends the run at max_iterations", async () => {
    const dir = tempDir();
    const preset = gatedPreset(dir, `verify_cmd = "sleep 30"\ntimeout = "300ms"`);
    const run = await autoloop(["run", preset, "Ship it", "--run-id", "r1", "--quiet"], {
      cwd: dir,
    });
    expect(run.exitCode, run.stderr).toBe(3);
    const records = journalOf(dir);
    const command = records.find((r) => r.topic === "acceptance.command");
    expect(command && shape(command)[2]).toEqual([
      ["command", "sleep 30"],
      ["exit_code", "124"],
      ["timed_out", true],
      ["output_tail", ""],
    ]);
    const tail = records.filter((r) => GATE_TOPICS.test(r.topic)).map((r) => r.topic);
    expect(tail.slice(-3)).toEqual(["operator.guidance", "completion.held", "loop.stop"]);
    const stop = records.at(-1)!;
    expect(stop.shape === "system" ? stop.fields.reason : undefined).toBe("max_iterations");
  }, 60_000);
});

describe("the acceptance gate's environment", () => {
  it("runs the commands without the run's secrets, with the hooks' AUTOLOOP_* variables", async () => {
    const dir = tempDir();
    writeFileSync(join(dir, "agent.env"), "MY_TOKEN=s3cret-value\n", { mode: 0o600 });
    const preset = gatedPreset(
      dir,
      `verify_cmds = ['test -z "$MY_TOKEN" && echo "run=$AUTOLOOP_RUN_ID iteration=$AUTOLOOP_ITERATION"']`,
    );
    const run = await autoloop(
      ["run", preset, "Ship it", "--run-id", "r1", "--quiet", "--env-file", "agent.env"],
      { cwd: dir },
    );
    expect(run.exitCode, run.stderr).toBe(0);
    const command = journalOf(dir).find((r) => r.topic === "acceptance.command")!;
    expect(command.shape === "system" && command.fields).toMatchObject({
      exit_code: "0",
      output_tail: "run=r1 iteration=1\n",
    });
  }, 60_000);
});

describe("[acceptance] as read", () => {
  it("takes verify_cmds (a list or the public comma-separated text) then verify_cmd, criteria with a check, the timeout", () => {
    expect(gateCommands({ verify_cmds: "npm test, npm run lint", verify_cmd: " make " })).toEqual([
      "npm test",
      "npm run lint",
      "make",
    ]);
    expect(gateCommands({ verify_cmds: ["a", " "] })).toEqual(["a"]);
    expect(gateCommands(undefined)).toEqual([]);
    expect(criterionChecks({ criteria: ["says hi :: grep hi f", "stated only"] })).toEqual([
      { text: "says hi", check: "grep hi f" },
    ]);
    expect(acceptanceTimeoutMs({ timeout: "2m" })).toBe(120_000);
    expect(acceptanceTimeoutMs({ timeout: 0 })).toBe(300_000);
  });

  it("tells the agent which commands failed and why", () => {
    const text = heldGuidance("intent", [
      { command: "grep hi f", exitCode: 124, timedOut: true, tail: "slow", criterion: "says hi" },
    ]);
    expect(text).toContain("acceptance criteria");
    expect(text).toContain('- "says hi": `grep hi f` exited 124 (timed out):\nslow');
  });
});
