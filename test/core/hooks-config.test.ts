// Hooks as a preset declares them (pure): the specs in their order, the problems `hooks
// validate` reports in the public shape, the lint's warnings, the compat warnings, the
// suspended stop's class and the layers' `--set` of an array of tables.
import { describe, expect, it } from "vitest";
import { adaptReferenceConfig } from "../../src/harness/preset/compat.js";
import { hookProblems, hookSpecs } from "../../src/harness/preset/hooks.js";
import { hookFindings } from "../../src/harness/preset/hooks-lint.js";
import { tomlValue } from "../../src/harness/preset/layers.js";
import { parseSetValue } from "../../src/harness/preset/preset.js";
import { stopReasonClass } from "../../src/journal/stop-reasons.js";

describe("hookSpecs", () => {
  it("reads [hooks] first in phase order (strict blocks pre_run), then [[hook]] in file order", () => {
    const specs = hookSpecs({
      hooks: { post_run: "b", pre_run: "a", strict: true, timeout_ms: 9 },
      hook: [{ phase: "pre_iteration", command: ["x", "y"], on_error: "suspend", mutate: "none" }],
    });
    expect(specs).toEqual([
      {
        phase: "pre_run",
        command: "a",
        onError: "block",
        mutate: "none",
        source: "legacy",
        timeoutMs: 9,
      },
      {
        phase: "post_run",
        command: "b",
        onError: "warn",
        mutate: "none",
        source: "legacy",
        timeoutMs: 9,
      },
      {
        phase: "pre_iteration",
        command: ["x", "y"],
        onError: "suspend",
        mutate: "none",
        source: "hook[0]",
        timeoutMs: 300_000,
      },
    ]);
  });
});

describe("hookProblems", () => {
  it("names the entry, field, value and fix of each bad key", () => {
    const problems = hookProblems("p/autoloops.toml", {
      hook: [
        { phase: "during", command: "x" },
        { phase: "pre_run", command: "x", on_error: "stop" },
      ],
    });
    expect(problems.map(({ index, field, value }) => ({ index, field, value }))).toEqual([
      { index: 0, field: "phase", value: "during" },
      { index: 1, field: "on_error", value: "stop" },
    ]);
    expect(problems[0]!.message).toMatch(
      /^p\/autoloops\.toml: hook\[0\]\.phase: found "during"; expected .*pre_run/,
    );
    expect(hookProblems("f", { hooks: { pre_run: "ok" } })).toEqual([]);
  });
});

describe("hookFindings", () => {
  it("warns of what a hook here cannot do, and of a command in the work dir", () => {
    const findings = hookFindings({
      hooks: { strict: true, post_run: "sh scripts/sync.sh" },
      hook: [
        { phase: "post_run", command: "/usr/bin/true", on_error: "suspend", mutate: "none" },
        { phase: "post_emit", command: "true", on_error: "warn", mutate: "event" },
        { phase: "pre_iteration", command: ["./gate"], on_error: "warn", mutate: "prompt" },
        { phase: "pre_emit", command: "true", on_error: "block", mutate: "event" },
      ],
    });
    // The emit phases run here (after the agent's turn); a mutation counts only in its phase.
    expect(findings.map((f) => `${f.field}: ${f.found}`)).toEqual([
      'hooks.post_run.command: "scripts/sync.sh", a file of the work dir',
      'hook[0].on_error: "suspend"',
      'hook[1].mutate: "event"',
      'hook[2].command: "./gate", a file of the work dir',
      "hooks.strict: true",
    ]);
    expect(findings[2]?.expected).toContain("only a pre_emit hook's output can change the event");
    expect(hookFindings({ hooks: { pre_run: "autoloop-gh-sync pull" } })).toEqual([]);
    // The public autowiki's bootstrap: a script the preset ships, by its placeholder.
    expect(hookFindings({ hooks: { pre_run: "sh {{PRESET_DIR}}/scripts/okf-init.sh" } })).toEqual(
      [],
    );
    expect(
      hookFindings({ hooks: { pre_run: "sh {{STATE_DIR}}/x.sh" } }).map((f) => f.field),
    ).toEqual(["hooks.pre_run.command"]);
  });
});

describe("hooks elsewhere", () => {
  it("compat names a mutation its phase never takes, and not the emit phases or [hooks] itself", () => {
    const warnings = adaptReferenceConfig({
      backend: { command: "x" },
      hooks: { pre_run: "a" },
      hook: [
        { phase: "post_emit", command: "a" },
        { phase: "pre_iteration", command: "a", mutate: "prompt", when: "x" },
        { phase: "post_iteration", command: "a", mutate: "prompt" },
      ],
    });
    expect(warnings).toEqual([
      "hook[1].when is not implemented here and is ignored",
      expect.stringMatching(/^hook\[2\]\.mutate = "prompt": only a pre_iteration hook's output/),
    ]);
  });

  it("a suspended run is stopped (exit 3), not failed", () => {
    expect(stopReasonClass("suspended")).toBe("stopped");
  });

  it("a layer's [[hook]] array goes through --set and back whole", () => {
    const hooks = [{ phase: "pre_run", command: ["a", "b c"], timeout_ms: 5 }];
    expect(parseSetValue(tomlValue(hooks))).toEqual(hooks);
  });
});
