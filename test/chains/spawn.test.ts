// Dynamic chains end to end through `autoloop run`: an agent's `chain.spawn` starts a chain
// once its run completes, with lineage in the journal, within the preset's limits and the
// root run's budget; a spawned preset is never one the run could have written.
import { mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { decideSpawn, type SpawnStanding } from "../../src/harness/chains/spawn-request.js";
import { RunView } from "../../src/harness/run-view.js";
import { autoloop, cleanupTempDirs, privateRunDir, tempDir } from "../helpers/cli.js";

afterEach(cleanupTempDirs);

/** A preset in `dir` whose agent runs `script` (sh), then completes. */
function preset(dir: string, name: string, script: string, extra = ""): void {
  mkdirSync(join(dir, name), { recursive: true });
  writeFileSync(
    join(dir, name, "autoloops.toml"),
    `[event_loop]\nmax_iterations = 3\nstall_iterations = 0\n[backend]\ncommand = "sh"\nargs = ["-c", ${JSON.stringify(`${script}\n"$AUTOLOOP_BIN" emit task.complete done`)}]\nprompt_mode = "file"\n${extra}`,
  );
}

const spawn = (payload: object) => `"$AUTOLOOP_BIN" emit chain.spawn '${JSON.stringify(payload)}'`;

function lines(
  work: string,
): Array<{ run: string; topic: string; fields?: Record<string, string> }> {
  return readFileSync(join(work, ".autoloop", "journal.jsonl"), "utf8")
    .trim()
    .split("\n")
    .map((l) => JSON.parse(l));
}

describe("chain.spawn", () => {
  it("starts the asked-for preset after the run, refuses what the limits and the budget do not allow", async () => {
    const presets = tempDir("autoloop-presets-");
    const work = tempDir("autoloop-spawn-");
    preset(
      presets,
      "lead",
      [
        spawn({ preset: "follow", objective: "check the work", justification: "needs a check" }),
        spawn({ preset: "follow" }),
        spawn({ preset: "../evil" }),
        spawn({ preset: "planted" }),
      ].join("\n"),
      '[chain_spawn]\npresets = ["follow", "planted"]\nmax_depth = 1\nmax_children = 1\n',
    );
    // A spawned run that asks again: depth 2 is past the root's max_depth, whatever its own says.
    preset(
      presets,
      "follow",
      spawn({ preset: "lead" }),
      '[chain_spawn]\npresets = ["lead"]\nmax_depth = 5\n',
    );
    // A preset reached through a link into the work dir, which the run can write.
    preset(join(work, "presets"), "planted", "touch PLANTED-RAN");
    symlinkSync(join(work, "presets", "planted"), join(presets, "planted"));
    const r = await autoloop(
      [
        "run",
        join(presets, "lead"),
        "ship",
        "--run-id",
        "root",
        "--trigger",
        "cron",
        "--max-iterations",
        "2",
        "--json",
      ],
      { cwd: work },
    );
    expect(r.exitCode, r.stderr).toBe(0);
    const out = JSON.parse(r.stdout.trim().split("\n").at(-1)!);
    expect(out).toMatchObject({
      runId: "root",
      outcome: "completed",
      spawned: [
        { chainRunId: "root-spawn-1", outcome: "completed", steps: [{ preset: "follow" }] },
      ],
    });
    const journal = lines(work);
    const spawned = journal.find((x) => x.topic === "chain.spawn" && x.fields !== undefined)!;
    expect(spawned.run).toBe("root");
    // The public fields in the public order, then ours.
    expect(Object.keys(spawned.fields!)).toEqual([
      "chain_run",
      "chain_id",
      "parent_id",
      "steps",
      "justification",
      "depth",
      "objective",
      "trigger",
    ]);
    expect(spawned.fields).toMatchObject({
      chain_id: "root-spawn-1",
      parent_id: "root",
      steps: "follow",
      justification: "needs a check",
      depth: "1",
      objective: "check the work",
      trigger: "cron",
    });
    const prompt = journal.find((x) => x.topic === "iteration.start" && x.run === "root")!;
    expect(prompt.fields!.prompt).toContain(
      `emit chain.spawn '{"preset": "follow", "objective": "what it should do", "justification": "why"}'`,
    );
    const start = journal.find((x) => x.topic === "chain.start")!;
    expect(start.fields).toMatchObject({
      trigger: "cron",
      parent_run_id: "root",
      objective: "check the work",
    });
    // The step runs on what the root's --max-iterations 2 left it: one iteration.
    const step = journal.find((x) => x.topic === "loop.start" && x.run === "root-spawn-1-step-1")!;
    expect(step.fields).toMatchObject({
      trigger: "chain",
      parent_run_id: "root-spawn-1",
      max_iterations: "1",
    });
    const refused = journal
      .filter((x) => x.topic === "chain.spawn.refused")
      .map((x) => [x.run, x.fields!.reason, x.fields!.steps]);
    // In order: the first request's chain runs (and its step asks) before the next is judged.
    expect(refused).toEqual([
      ["root-spawn-1-step-1", "max_depth", "lead"],
      ["root", "max_children", "follow"],
      ["root", "not_allowed", "../evil"],
      ["root", "max_children", "planted"],
    ]);
    expect(readdirSync(work)).not.toContain("PLANTED-RAN");
    expect(
      JSON.parse(
        readFileSync(join(work, ".autoloop", "chains", "specs", "root-spawn-1.json"), "utf8"),
      ),
    ).toEqual({
      chain_id: "root-spawn-1",
      parent_id: "root",
      steps: "follow",
      justification: "needs a check",
    });
  }, 60_000);

  it("caps spawned runs to what the root's budget left, and books their spend on the root", async () => {
    const presets = tempDir("autoloop-presets-");
    const work = tempDir("autoloop-spawn-");
    const usage = `printf '%s' '{"model": "m", "input_tokens": 10, "output_tokens": 10, "cost_usd": 0.6}' > "$AUTOLOOP_USAGE_FILE"`;
    preset(
      presets,
      "lead",
      `${usage}\n${spawn({ preset: "follow" })}\n${spawn({ preset: "follow" })}`,
      '[chain_spawn]\npresets = ["follow"]\nmax_depth = 1\nmax_children = 2\n',
    );
    // It does not complete: the budget left ($0.40) stops it after its first $0.60 call.
    preset(presets, "follow", `${usage}\nexit 0`);
    const r = await autoloop(
      ["run", join(presets, "lead"), "go", "--run-id", "root", "--budget-usd", "1"],
      { cwd: work },
    );
    expect(r.exitCode, r.stderr).toBe(0);
    const journal = lines(work);
    const step = journal.find((x) => x.topic === "loop.stop" && x.run === "root-spawn-1-step-1");
    expect(step?.fields, r.stderr).toMatchObject({ reason: "cost_budget" });
    expect(
      journal.filter((x) => x.topic === "chain.spawn.refused").map((x) => x.fields!.reason),
    ).toEqual(["budget_spent"]);
    const end = JSON.parse(readFileSync(join(privateRunDir(work, "root"), "end.json"), "utf8"));
    expect(end).toMatchObject({ runId: "root", complete: true, costUsd: 1.2, totalTokens: 40 });
  }, 60_000);

  it("spawns from a scheduled chain's step as a scheduled run: no user layer", async () => {
    const presets = tempDir("autoloop-presets-");
    const work = tempDir("autoloop-spawn-");
    const xdg = tempDir("autoloop-xdg-");
    preset(
      presets,
      "lead",
      spawn({ preset: "follow" }),
      '[chain_spawn]\npresets = ["follow"]\nmax_depth = 1\nmax_children = 1\n',
    );
    preset(presets, "follow", "");
    // What another run of this user could have written for the spawned preset.
    mkdirSync(join(xdg, "autoloop", "overrides"), { recursive: true });
    writeFileSync(
      join(xdg, "autoloop", "overrides", "follow.toml"),
      '[backend]\ncommand = "false"\n',
    );
    const r = await autoloop(
      ["run", "--chain", join(presets, "lead"), "go", "--run-id", "c", "--trigger", "cron"],
      { cwd: work, env: { XDG_CONFIG_HOME: xdg } },
    );
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stderr).toContain("overrides/follow.toml is not applied to a scheduled run");
    const journal = lines(work);
    expect(journal.find((x) => x.topic === "chain.spawn" && x.fields)?.fields).toMatchObject({
      parent_id: "c-step-1",
      trigger: "cron",
    });
    const spawnedStep = journal.find(
      (x) => x.topic === "loop.complete" && x.run === "c-step-1-spawn-1-step-1",
    );
    expect(spawnedStep).toBeDefined();
  }, 60_000);

  it("never runs a preset that lies in the work dir; a spawn that cannot start fails alone", async () => {
    const presets = tempDir("autoloop-presets-");
    const work = tempDir("autoloop-spawn-");
    preset(
      presets,
      "lead",
      `${spawn({ preset: "planted" })}\n${spawn({ preset: "broken" })}`,
      '[chain_spawn]\npresets = ["planted", "broken"]\nmax_depth = 1\nmax_children = 2\n',
    );
    preset(join(work, "presets"), "planted", "touch PLANTED-RAN");
    symlinkSync(join(work, "presets", "planted"), join(presets, "planted"));
    // A preset that does not load (a table given twice).
    preset(presets, "broken", "", "[event_loop]\nmax_iterations = 0\n");
    const r = await autoloop(["run", join(presets, "lead"), "go", "--run-id", "root", "--json"], {
      cwd: work,
    });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stderr).toContain("chain.spawn refused (not_found)");
    expect(r.stderr).toContain("lies in the work dir");
    expect(readdirSync(work)).not.toContain("PLANTED-RAN");
    expect(r.stderr).toContain("chain root-spawn-1 did not start");
    expect(JSON.parse(r.stdout.trim().split("\n").at(-1)!).spawned).toEqual([
      expect.objectContaining({ chainRunId: "root-spawn-1", outcome: "failed" }),
    ]);
  }, 30_000);
});

describe("decideSpawn", () => {
  const at: SpawnStanding = {
    allowed: ["review"],
    depth: 0,
    maxDepth: 1,
    maxChildren: 1,
    spawned: 0,
    parentCompleted: true,
    poolSpent: undefined,
  };
  it("reads the public steps or our preset, and refuses in order", () => {
    expect(decideSpawn('{"steps": "review"}', at)).toMatchObject({
      kind: "spawn",
      request: { steps: ["review"] },
    });
    expect(decideSpawn('{"preset": "review", "objective": "o"}', at)).toMatchObject({
      kind: "spawn",
      request: { objective: "o", justification: "" },
    });
    const reason = (payload: string, over: Partial<SpawnStanding> = {}) => {
      const d = decideSpawn(payload, { ...at, ...over });
      return d.kind === "refused" ? d.reason : d.kind;
    };
    expect(reason("review")).toBe("bad_request");
    expect(reason('{"objective": 3, "preset": "review"}')).toBe("bad_request");
    expect(reason('{"preset": "review"}', { parentCompleted: false })).toBe("parent_not_completed");
    expect(reason('{"steps": ["review", "/etc"]}')).toBe("not_allowed");
    expect(reason('{"preset": "review"}', { depth: 1 })).toBe("max_depth");
    expect(reason('{"preset": "review"}', { spawned: 1 })).toBe("max_children");
    expect(reason('{"preset": "review"}', { poolSpent: "spent" })).toBe("budget_spent");
  });
});

describe("a chain.spawn request", () => {
  it("never routes: the event before it stays the routing event", () => {
    const file = join(tempDir(), "journal.jsonl");
    const line = (topic: string) =>
      `{"run": "r", "iteration": "1", "topic": "${topic}", "ts": "2026-11-27T00:00:00.000Z", "v": 1, "payload": "{}", "source": "agent"}\n`;
    writeFileSync(file, line("build.ready") + line("chain.spawn"));
    const view = new RunView(file, "r", 0);
    view.refresh();
    expect(view.recentEvent).toBe("build.ready");
  });
});
