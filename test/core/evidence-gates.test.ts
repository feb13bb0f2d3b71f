// Evidence gates ([[gate]] in topology.toml): an emit without its evidence is refused and the
// gate's blocked (or failed) event journaled and routed instead, through the event tool and
// around it; the pure check; and the topology lint's word on gates no emit can pass.
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { checkGate, type Gate } from "../../src/harness/preset/evidence.js";
import { loadPreset } from "../../src/harness/preset/preset.js";
import { topologyFindings } from "../../src/harness/preset/topology-lint.js";
import { autoloop, cleanupTempDirs, tempDir } from "../helpers/cli.js";
import { field, journalOf } from "../helpers/journal.js";

afterEach(cleanupTempDirs);

const TOPOLOGY = `completion = "task.complete"

[[role]]
id = "fixer"
emits = ["fix.ready"]
prompt = "You fix."

[[role]]
id = "verifier"
emits = ["verify.passed", "verify.failed"]
prompt = "You verify."

[[role]]
id = "closer"
emits = ["task.complete"]
prompt = "You close."

[handoff]
"loop.start" = ["fixer"]
"fix.ready" = ["verifier"]
"verify.blocked" = ["fixer"]
"verify.failed" = ["fixer"]
"verify.passed" = ["closer"]

[[gate]]
event = "verify.passed"
requires = ["tests"]
failed = "verify.failed"
evidence = [{ key = "coverage", type = "coverage", min = 80 }]
`;

// By the routing event: fix, verify (first without evidence, through the tool and around it;
// then with coverage too low, then enough), close.
const AGENT = `#!/bin/sh
tool="$AUTOLOOP_BIN"
case "$AUTOLOOP_RECENT_EVENT" in
  loop.start|verify.blocked|verify.failed) "$tool" emit fix.ready "patched" ;;
  fix.ready)
    if [ "$AUTOLOOP_ITERATION" = 2 ]; then
      "$tool" emit verify.passed "looks good to me" 2>> "$AUTOLOOP_PROJECT_DIR/emit-stderr.txt"
      echo "exit $?" >> "$AUTOLOOP_PROJECT_DIR/emit-stderr.txt"
      printf '{"run": "%s", "iteration": "2", "topic": "verify.passed", "ts": "2026-01-01T00:00:00.000Z", "v": 1, "payload": "trust me", "source": "agent"}\\n' "$AUTOLOOP_RUN_ID" >> "$AUTOLOOP_JOURNAL_FILE"
    else
      "$tool" emit verify.passed "tests=12 coverage=70%" 2>> "$AUTOLOOP_PROJECT_DIR/emit-stderr.txt"
      "$tool" emit verify.passed "tests=12 coverage=91%"
    fi ;;
  verify.passed) "$tool" emit task.complete "closed" ;;
esac
`;

function gatedPreset(dir: string): string {
  const preset = join(dir, "gated");
  writeFileSync(join(dir, "agent.sh"), AGENT);
  mkdirSync(preset);
  writeFileSync(
    join(preset, "autoloops.toml"),
    `[event_loop]\nmax_iterations = 7\n\n[backend]\ncommand = "sh"\nargs = [${JSON.stringify(join(dir, "agent.sh"))}]\n`,
  );
  writeFileSync(join(preset, "topology.toml"), TOPOLOGY);
  return preset;
}

describe("an evidence gate in autoloop run", () => {
  it("refuses verify.passed without its evidence, journals and routes verify.blocked, then passes it", async () => {
    const dir = tempDir();
    const r = await autoloop(["run", gatedPreset(dir), "fix it"], { cwd: dir });
    expect(r.exitCode, r.stderr).toBe(0);
    const journal = journalOf(dir);
    // Refused through the event tool: the gate's event instead, the reference's fields in order.
    const blocked = journal.filter((x) => x.topic === "verify.blocked");
    expect(blocked.map((b) => b.shape === "system" && Object.keys(b.fields))).toEqual([
      ["gated_event", "missing_evidence", "required_evidence", "summary"],
      ["gated_event", "missing_evidence", "required_evidence", "summary", "via"],
    ]);
    expect(field(blocked[0], "gated_event")).toBe("verify.passed");
    expect(field(blocked[0], "missing_evidence")).toBe("tests");
    expect(field(blocked[0], "summary")).toBe("looks good to me");
    // Written around the tool: refused by the route stage all the same.
    expect(field(blocked[1], "via")).toBe("route");
    expect(field(blocked[1], "summary")).toBe("trust me");
    const stderr = readFileSync(join(dir, "emit-stderr.txt"), "utf8");
    expect(stderr).toContain(
      "`verify.passed` requires evidence `tests`; missing: `tests`. Emitted `verify.blocked` instead.",
    );
    expect(stderr).toContain("exit 1");
    // The log and the scratchpad say what the agent did: a refused event, not "emitted nothing".
    expect(r.stderr).toContain("verify.passed refused (verify.blocked)");
    // Evidence given but under the threshold: the gate's failed event, with why.
    const failed = journal.find((x) => x.topic === "verify.failed");
    expect(failed?.shape === "system" && Object.keys(failed.fields)).toEqual([
      "gated_event",
      "missing_evidence",
      "evidence_type",
      "required_evidence",
      "threshold_failure",
      "summary",
    ]);
    expect(field(failed, "threshold_failure")).toBe("coverage:value 70 is below min 80");
    // The refusal routed: the next iteration went back to the fixer, told why.
    const start3 = journal.find((x) => x.topic === "iteration.start" && x.iteration === "3");
    expect(field(start3, "recent_event")).toBe("verify.blocked");
    expect(field(start3, "suggested_roles")).toBe("fixer");
    expect(field(start3, "prompt")).toContain(
      "Evidence gate: your verify.passed in iteration 2 was refused (missing tests)",
    );
    expect(field(start3, "prompt")).not.toContain("- verify.passed needs");
    const start2 = journal.find((x) => x.topic === "iteration.start" && x.iteration === "2");
    expect(field(start2, "prompt")).toContain(
      "- verify.passed needs tests, coverage (>= 80); else verify.blocked",
    );
    // Only the verify.passed with its evidence counted, and the run completed after it.
    const start5 = journal.find((x) => x.topic === "iteration.start" && x.iteration === "5");
    expect(field(start5, "recent_event")).toBe("verify.passed");
    expect(journal.at(-1)?.topic).toBe("loop.complete");
    expect(journal.at(-1)?.iteration).toBe("5");
  });
});

const GATE: Gate = {
  event: "verify.passed",
  requires: [],
  evidence: [
    { key: "tests", type: "test" },
    { key: "coverage", type: "coverage", min: 80, max: 100 },
  ],
  blocked: "verify.blocked",
  failed: "verify.rejected",
};

describe("checkGate", () => {
  it("takes key=value tokens and JSON, never prose", () => {
    expect(checkGate(GATE, "verify.passed", "tests=42 passed coverage=87%").kind).toBe("pass");
    expect(checkGate(GATE, "verify.passed", '{"tests": 42, "coverage": "87%"}').kind).toBe("pass");
    expect(
      checkGate(
        GATE,
        "verify.passed",
        '{"tests": {"value": "42", "status": "passed"}, "coverage": 90}',
      ).kind,
    ).toBe("pass");
    const prose = checkGate(GATE, "verify.passed", "tests: all good, coverage: looks fine");
    expect(prose).toMatchObject({ kind: "refused", topic: "verify.blocked" });
    expect(prose.kind === "refused" && prose.fields.missing_evidence).toBe("tests,coverage");
  });

  it("sends a failing status or threshold to the failed topic, a missing key to blocked", () => {
    const failing = checkGate(GATE, "verify.passed", "tests=3 failed coverage=101");
    expect(failing).toMatchObject({ kind: "refused", topic: "verify.rejected" });
    expect(failing.kind === "refused" && failing.fields).toEqual({
      gated_event: "verify.passed",
      missing_evidence: "",
      evidence_type: "test,coverage",
      required_evidence: "tests,coverage",
      threshold_failure:
        "tests:expected status `passed`, got `failed`,coverage:value 101 is above max 100",
      summary: "tests=3 failed coverage=101",
    });
    const mixed = checkGate(GATE, "verify.passed", "tests=3 failed");
    expect(mixed).toMatchObject({ kind: "refused", topic: "verify.blocked" });
  });
});

describe("the topology lint on gates", () => {
  it("names a gate no emit can pass, one that guards nothing, and a refusal routed nowhere", () => {
    const dir = tempDir();
    writeFileSync(join(dir, "autoloops.toml"), '[backend]\ncommand = "true"\n');
    writeFileSync(
      join(dir, "topology.toml"),
      `[[role]]
id = "verifier"
emits = ["verify.passed", "task.complete"]

[handoff]
"loop.start" = ["verifier"]
"verify.passed" = ["verifier"]
"verify.blocked" = ["verifier"]

[[gate]]
event = "verify.passed"
evidence = [{ key = "coverage", type = "coverage", min = 90, max = 80 }]
failed = "verify.rejected"

[[gate]]
event = "verify.pased"
requires = ["tests"]
`,
    );
    const findings = topologyFindings(loadPreset(dir)).filter((f) => f.field.startsWith("gate"));
    expect(findings.map((f) => [f.severity, f.field, f.found])).toEqual([
      ["error", "gate[0].evidence[0]", "coverage: min 90 above max 80"],
      ["warning", "gate[0].failed", '"verify.rejected"'],
      ["warning", "gate[1].event", '"verify.pased"'],
    ]);
  });
});
