// The pure rules of parallel waves: which triggers the harness accepts, the objective list a
// payload must be, the event tool's refusals, and what `validate`'s topology checks say of a
// preset's triggers.
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { type EmitContext, parallelRefusal } from "../../src/harness/emit.js";
import { parseObjectives, triggerRefusal } from "../../src/harness/preset/parallel.js";
import { loadPreset } from "../../src/harness/preset/preset.js";
import { suggestedRoles } from "../../src/harness/preset/topology.js";
import { topologyFindings } from "../../src/harness/preset/topology-lint.js";
import { isSystemTopic } from "../../src/harness/run-view.js";
import { loadConfig } from "../../src/scheduler/config/config.js";
import { validateAll } from "../../src/scheduler/schedules/validate.js";
import { formatProblem } from "../../src/util/errors.js";
import { cleanupTempDirs, tempDir } from "../helpers/cli.js";

afterEach(cleanupTempDirs);

const ctx = {
  enabled: true,
  allowedEvents: ["review.ready", "task.complete"],
  completionEvent: "task.complete",
  isSystemTopic,
};

describe("wave triggers", () => {
  it("accepts explore.parallel and a dispatch of an allowed handoff event, nothing else", () => {
    expect(triggerRefusal("explore.parallel", ctx)).toBeUndefined();
    expect(triggerRefusal("review.ready.parallel", ctx)).toBeUndefined();
    expect(triggerRefusal("review.done.parallel", ctx)).toMatch(
      /review.done is not an allowed event now/,
    );
    expect(triggerRefusal("task.complete.parallel", ctx)).toMatch(/completion event/);
    expect(
      triggerRefusal("loop.start.parallel", { ...ctx, allowedEvents: ["loop.start"] }),
    ).toMatch(/harness topic/);
    expect(triggerRefusal("review.ready.parallel", { ...ctx, enabled: false })).toMatch(
      /parallel waves are off/,
    );
    expect(triggerRefusal("review.ready.parallel.joined", ctx)).toMatch(/harness only/);
  });

  it("takes a bullet or numbered list of 1 to max_branches objectives", () => {
    expect(parseObjectives("- a\n* b\n\n3. c", 3)).toEqual({
      kind: "ok",
      objectives: ["a", "b", "c"],
    });
    expect(parseObjectives("- a\nand b", 3)).toEqual({
      kind: "refused",
      reason: "invalid_branch_list",
    });
    expect(parseObjectives("  \n", 3)).toEqual({ kind: "refused", reason: "empty_branch_list" });
    expect(parseObjectives("- a\n- b", 1)).toEqual({
      kind: "refused",
      reason: "too_many_branches",
    });
  });

  it("is refused by the event tool with the fix, and a joined topic always", () => {
    const emit: EmitContext = {
      runId: "r",
      iteration: "1",
      journalFile: "",
      tasksFile: "",
      completionEvent: "task.complete",
      recentEvent: "loop.start",
      allowedEvents: ["review.ready"],
      allowedRoles: ["planner"],
      parallel: { maxBranches: 2 },
    };
    expect(parallelRefusal(emit, "review.ready.parallel", "- a\n- b")).toBeUndefined();
    expect(parallelRefusal(emit, "review.ready.parallel", "- a\n- b\n- c")).toMatch(
      /too_many_branches: .* 1 to 2 branch objectives/,
    );
    expect(parallelRefusal(emit, "explore.parallel.joined", "x")).toMatch(/harness only/);
    expect(parallelRefusal({ ...emit, parallel: undefined }, "explore.parallel", "- a")).toMatch(
      /enabled = false/,
    );
    expect(parallelRefusal(emit, "review.ready", "anything")).toBeUndefined();
  });

  it("routes a joined dispatch event as its base unless a handoff names it", () => {
    const topology = {
      roles: [
        { id: "a", emits: [], prompt: "" },
        { id: "b", emits: [], prompt: "" },
      ],
      handoff: new Map([["review.ready", ["b"]]]),
      gates: [],
    };
    expect(suggestedRoles(topology, "review.ready.parallel.joined")).toEqual(["b"]);
    topology.handoff.set("review.ready.parallel.joined", ["a"]);
    expect(suggestedRoles(topology, "review.ready.parallel.joined")).toEqual(["a"]);
  });
});

function preset(parallel: string, planner: string, handoff = ""): ReturnType<typeof loadPreset> {
  const dir = join(tempDir(), "presets", "p");
  mkdirSync(dir, { recursive: true });
  writeFileSync(
    join(dir, "autoloops.toml"),
    `[backend]\ncommand = "true"\n\n[parallel]\n${parallel}\n`,
  );
  writeFileSync(
    join(dir, "topology.toml"),
    `[[role]]\nid = "planner"\nemits = ${planner}\n\n[[role]]\nid = "reviewer"\nemits = ["review.done"]\n\n` +
      `[handoff]\n"loop.start" = ["planner"]\n"review.ready" = ["reviewer"]\n"review.done" = ["planner"]\n${handoff}`,
  );
  return loadPreset(dir);
}

describe("validate's topology checks on waves", () => {
  it("finds nothing wrong with a trigger on an event the role emits", () => {
    const p = preset(
      "enabled = true",
      '["review.ready", "review.ready.parallel", "explore.parallel", "task.complete"]',
      '"review.ready.parallel.joined" = ["reviewer"]\n',
    );
    expect(topologyFindings(p)).toEqual([]);
  });

  it("names a trigger on an event the role may not emit, on the completion event, a joined emit, and waves off", () => {
    const on = preset(
      "enabled = true",
      '["review.ready", "review.done.parallel", "task.complete.parallel", "review.ready.parallel.joined", "task.complete"]',
      '"explore.parallel.joined" = ["planner"]\n',
    );
    expect(
      topologyFindings(on)
        .filter((f) => f.found.includes("parallel"))
        .map((f) => [f.severity, f.field, f.found]),
    ).toEqual([
      ["error", 'role "planner".emits', '"review.done.parallel"'],
      ["error", 'role "planner".emits', '"task.complete.parallel"'],
      ["error", 'role "planner".emits', '"review.ready.parallel.joined"'],
    ]);
    expect(
      topologyFindings(on).find((f) => f.field === 'handoff."explore.parallel.joined"')?.found,
    ).toBe("an event no role emits");
    const off = preset(
      "enabled = false",
      '["review.ready", "review.ready.parallel", "task.complete"]',
    );
    const [finding] = topologyFindings(off).filter((f) => f.found.includes("parallel"));
    expect(finding?.severity).toBe("error");
    expect(finding?.expected).toMatch(/set \[parallel\] enabled = true/);
  });

  it("warns of a timeout aggregate without its deadline; refuses an unknown mode", () => {
    const emits = '["review.ready", "task.complete"]';
    const warned = topologyFindings(preset('enabled = true\naggregate.mode = "timeout"', emits));
    expect(warned.map((f) => [f.severity, f.field])).toEqual([
      ["warning", "parallel.aggregate.timeout_ms"],
    ]);
    const timed = preset(
      'enabled = true\naggregate.mode = "timeout"\naggregate.timeout_ms = 500',
      emits,
    );
    expect(topologyFindings(timed)).toEqual([]);
    expect(() => preset('enabled = true\naggregate.mode = "fastest"', emits)).toThrow(
      /parallel\.aggregate\.mode/,
    );
  });

  it("makes autoloop-cron validate refuse a schedule of that preset, naming the file and the fix", () => {
    const p = preset(
      "enabled = false",
      '["review.ready", "review.ready.parallel", "task.complete"]',
    );
    const root = join(p.dir, "..", "..");
    writeFileSync(join(root, "autoloop-cron.toml"), "");
    mkdirSync(join(root, "schedules"));
    writeFileSync(
      join(root, "schedules", "a.toml"),
      '[[schedule]]\nname = "w"\ncron = "0 2 * * *"\npreset = "p"\nobjective = "o"\n',
    );
    const report = validateAll(loadConfig("autoloop-cron.toml", root));
    expect(report.problems.map(formatProblem)).toEqual([
      expect.stringMatching(
        /schedules\/a\.toml: .*p\/topology\.toml: role "planner"\.emits: found "review\.ready\.parallel"; expected .*set \[parallel\] enabled = true, or remove it from emits/,
      ),
    ]);
  });
});
