// The public autoloop's operator verbs through the `autoloop` CLI, over real runs of a
// scripted `command` agent: loops, doctor, runs clean, config, capabilities, triage.
import {
  appendFileSync,
  existsSync,
  mkdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { execa } from "execa";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { autoloop, cleanupTempDirs, tempDir } from "../helpers/cli.js";
import { scriptPreset } from "../helpers/script-preset.js";
import { waitFor } from "../helpers/wait.js";

let dir: string;
let done: string;
let xdg: string;
const json = (text: string) => JSON.parse(text) as Record<string, unknown> & unknown[];
const al = (args: string[], env: Record<string, string> = {}) =>
  autoloop(args, { cwd: dir, env: { XDG_CONFIG_HOME: xdg, ...env } });

beforeAll(async () => {
  dir = tempDir("autoloop-verbs-");
  xdg = join(dir, "xdg");
  done = scriptPreset(dir, { name: "done", script: 'exec "$AUTOLOOP_BIN" emit task.complete ok' });
  const first = await al(["run", done, "first", "--run-id", "run-done-1"]);
  expect(first.exitCode, first.stderr).toBe(0);
  // What a run writes of itself: one alive and quiet for an hour, one whose process is gone.
  const child = execa(process.execPath, ["-e", ""]);
  const gone = child.pid!;
  await child;
  const line = (id: string, pid: number) =>
    `${JSON.stringify({ run_id: id, status: "running", preset: "demo", iteration: 2, pid, updated_at: new Date(Date.now() - 3_600_000).toISOString() })}\n`;
  appendFileSync(
    join(dir, ".autoloop", "registry.jsonl"),
    line("run-quiet", process.pid) + line("run-gone", gone),
  );
  mkdirSync(join(dir, ".autoloop", "runs", "run-quiet"), { recursive: true });
}, 30_000);
afterAll(cleanupTempDirs);

describe("autoloop loops", () => {
  it("lists, shows by prefix, gives a run's files and the work dir's health", async () => {
    const live = await al(["loops", "--json"]);
    expect(live.exitCode, live.stderr).toBe(0);
    expect(
      (JSON.parse(live.stdout) as Array<{ run_id: string }>).map((r) => r.run_id).sort(),
    ).toEqual(["run-gone", "run-quiet"]);
    const all = await al(["loops", "--all"]);
    expect(all.stdout).toMatch(/^RUN ID\s+STATUS\s+PRESET/);
    expect(all.stdout).toMatch(/run-done-1\s+completed\s+done\s+--\s+iter:1\s+loop\.complete/);

    const show = await al(["loops", "show", "run-do", "--json"]);
    expect(show.exitCode, show.stderr).toBe(0);
    expect(json(show.stdout)).toMatchObject({
      run_id: "run-done-1",
      status: "completed",
      health: "recent_completed",
    });
    const text = await al(["loops", "show", "run-done"]);
    expect(text.stdout).toMatch(
      /^Run:\s+run-done-1\nStatus:\s+completed\nPreset:\s+done\nObjective:\s+first/,
    );
    const ambiguous = await al(["loops", "show", "run-", "--json"]);
    expect(ambiguous.exitCode).toBe(1);
    expect(json(ambiguous.stdout)).toEqual({
      error: "Ambiguous run ID 'run-'.",
      matches: expect.arrayContaining(["run-done-1", "run-quiet"]),
    });
    const none = await al(["loops", "artifacts", "nope"]);
    expect([none.exitCode, none.stderr]).toEqual([
      1,
      expect.stringContaining("No run matching 'nope'."),
    ]);

    const files = json((await al(["loops", "artifacts", "run-done-1", "--json"])).stdout);
    expect(files).toMatchObject({
      journal_file: join(dir, ".autoloop", "journal.jsonl"),
      work_dir: dir,
    });
    const health = json((await al(["loops", "health", "--json"])).stdout);
    expect(health).toMatchObject({
      stuck: { count: 1, run_ids: ["run-quiet"] },
      recent_completed: { count: 1, run_ids: ["run-done-1"] },
      active: { count: 0 },
    });
    const summary = await al(["loops", "health"]);
    expect(summary.stdout).toMatch(
      /^Health: 0 active, 0 watching, 1 stuck, 0 failed \(last 24h\)\n\nSTUCK:\n/,
    );
    const already = await al(["loops", "watch", "run-done-1"]);
    expect([already.exitCode, already.stdout]).toEqual([
      0,
      expect.stringMatching(/^\[watch\] Run already completed\.\nRun:\s+run-done-1/),
    ]);
    expect((await al(["loops", "bogus"])).exitCode).toBe(1);
  });

  it("watch follows a live run, a line per change, until it completes", async () => {
    const go = join(dir, "go");
    const waiting = scriptPreset(dir, {
      name: "waiting",
      script: `while [ ! -f ${go} ]; do sleep 0.05; done\nexec "$AUTOLOOP_BIN" emit task.complete ok`,
    });
    const run = al(["run", waiting, "wait", "--run-id", "run-live-1"]);
    await waitFor(
      () =>
        readFileSync(join(dir, ".autoloop", "registry.jsonl"), "utf8").includes(
          '"run_id":"run-live-1","status":"running"',
        ),
      "the live run in the registry",
    );
    const watch = al(["loops", "watch", "run-live", "--interval", "50ms"]);
    let seen = "";
    watch.stdout!.on("data", (b: Buffer) => {
      seen += b.toString();
    });
    await waitFor(() => seen.includes("[watch] Watching run-live-1"), "the watch to start");
    writeFileSync(go, "");
    const [ran, watched] = await Promise.all([run, watch]);
    expect(ran.exitCode, ran.stderr).toBe(0);
    expect(watched.exitCode, watched.stderr).toBe(0);
    expect(watched.stdout).toMatch(
      /\[watch\] Run completed\.\nRun:\s+run-live-1\nStatus:\s+completed/,
    );
  }, 30_000);
});

describe("autoloop doctor", () => {
  it("passes with warnings, and fails (exit 2) when a preset's agent is missing", async () => {
    const ok = await al(["doctor", "--json"]);
    expect(ok.exitCode, ok.stdout).toBe(0);
    const checks = json(ok.stdout).checks as Array<{
      name: string;
      status: string;
      detail: string;
    }>;
    expect(checks.find((c) => c.name === "node")?.status).toBe("ok");
    expect(checks.find((c) => c.name === "runs")).toMatchObject({
      status: "warn",
      detail: expect.stringContaining("run-gone"),
    });
    const missing = scriptPreset(dir, { name: "missing", script: "" });
    const toml = join(missing, "autoloops.toml");
    writeFileSync(
      toml,
      readFileSync(toml, "utf8").replace(/command = .*/, 'command = "no-such-agent-cli"'),
    );
    const bad = await al(["doctor", "--preset", missing]);
    expect(bad.exitCode).toBe(2);
    expect(bad.stdout).toMatch(
      /✗ backend\s+preset missing: backend\.command "no-such-agent-cli" \(command\) is not on PATH/,
    );
    expect((await al(["doctor", "--bogus"])).exitCode).toBe(1);
    // A user config every run would refuse to start with.
    const broken = join(dir, "broken-xdg");
    mkdirSync(join(broken, "autoloop"), { recursive: true });
    writeFileSync(join(broken, "autoloop", "config.toml"), "[event_loop]\nmax_iterations = 0\n");
    const config = await al(["doctor"], { XDG_CONFIG_HOME: broken });
    expect([config.exitCode, config.stdout]).toEqual([
      2,
      expect.stringMatching(/✗ config\s+\S+config\.toml: event_loop\.max_iterations: found 0/),
    ]);
  });
});

describe("autoloop runs clean", () => {
  it("removes ended runs' folders past --max-age, keeps live and recent ones", async () => {
    const runs = join(dir, ".autoloop", "runs");
    const recent = await al(["runs", "clean", "--json"]);
    expect(json(recent.stdout)).toMatchObject({ removed: [], dry_run: false });
    const dry = await al(["runs", "clean", "--max-age", "0", "--dry-run"]);
    expect(dry.stdout).toMatch(/^Would clean \d run directory\(s\): .*run-done-1/);
    expect(existsSync(join(runs, "run-done-1"))).toBe(true);
    const clean = json((await al(["runs", "clean", "--max-age", "0", "--json"])).stdout);
    expect(clean.removed).toContain("run-done-1");
    expect(clean.kept).toEqual([{ run_id: "run-quiet", why: "live" }]);
    expect(existsSync(join(runs, "run-done-1"))).toBe(false);
    expect(existsSync(join(runs, "run-quiet"))).toBe(true);
    // The history stays: the run is still listed.
    expect((await al(["loops", "show", "run-done-1"])).exitCode).toBe(0);
    const bad = await al(["runs", "clean", "--max-age", "soon"]);
    expect([bad.exitCode, bad.stderr]).toEqual([
      1,
      expect.stringContaining('--max-age "soon" is neither'),
    ]);
  });
});

describe("autoloop config", () => {
  it("sets, shows with sources and unsets; a run takes the repo override", async () => {
    const path = await al(["config", "path", "--json"]);
    expect(json(path.stdout)).toEqual({
      path: join(xdg, "autoloop", "config.toml"),
      exists: false,
    });
    expect((await al(["config", "set", "event_loop.max_iterations=7"])).exitCode).toBe(0);
    expect((await al(["config", "set", "event_loop.stall_iterations=5"])).exitCode).toBe(0);
    const invalid = await al(["config", "set", "event_loop.max_iterations=0"]);
    expect([invalid.exitCode, invalid.stderr]).toEqual([
      1,
      expect.stringMatching(
        /not written.*\n.*config\.toml: event_loop\.max_iterations: found 0; expected/,
      ),
    ]);
    const repo = await al([
      "config",
      "set",
      "--repo",
      "--preset",
      "stopper",
      "event_loop.max_iterations=1",
    ]);
    expect(repo.exitCode, repo.stderr).toBe(0);
    const stopper = scriptPreset(dir, { name: "stopper", script: "echo working" });
    const shown = json((await al(["config", "show", "--preset", stopper, "--json"])).stdout);
    expect(shown.provenance).toMatchObject({
      "event_loop.max_iterations": `repo override (${join(dir, ".autoloop", "overrides", "stopper.toml")})`,
      "event_loop.stall_iterations": `user (${join(xdg, "autoloop", "config.toml")})`,
      "backend.prompt_mode": `project (${join(stopper, "autoloops.toml")})`,
      "event_loop.ask_event": "default",
    });
    const ran = await al(["run", stopper, "go", "--json"]);
    expect(json(ran.stdout.trim().split("\n").at(-1)!)).toMatchObject({
      reason: "max_iterations",
      iterations: 1,
    });
    // The repo override is the project's, which runs write: an unwatched run does not take it.
    const cron = await al(["run", stopper, "go", "--json", "--trigger", "cron"]);
    expect(json(cron.stdout.trim().split("\n").at(-1)!)).toMatchObject({ iterations: 3 });
    expect(cron.stderr).toContain("is not applied to a cron run");
    // A chain's step takes the user's override of its preset, not the repo's.
    await al(["config", "set", "--user", "--preset", "stopper", "event_loop.max_iterations=2"]);
    const chain = await al(["run", "--chain", "stopper", "go", "--json"]);
    expect(json(chain.stdout.trim().split("\n").at(-1)!)).toMatchObject({
      steps: [{ iterations: 2 }],
    });
    // A scheduled run, or a step of a scheduled chain, takes no user layer: another run of this
    // user could have written it. The schedule's `set` is its configuration.
    const userOverride = join(xdg, "autoloop", "overrides", "stopper.toml");
    const scheduled = await al(["run", stopper, "go", "--json", "--trigger", "cron"]);
    expect(json(scheduled.stdout.trim().split("\n").at(-1)!)).toMatchObject({ iterations: 3 });
    expect(scheduled.stderr).toContain(
      `the user override ${userOverride} is not applied to a scheduled run`,
    );
    const scheduledChain = await al([
      "run",
      "--chain",
      "stopper",
      "go",
      "--json",
      "--trigger",
      "cron",
    ]);
    expect(json(scheduledChain.stdout.trim().split("\n").at(-1)!)).toMatchObject({
      steps: [{ iterations: 3 }],
    });
    expect((await al(["config", "unset", "event_loop.max_iterations"])).exitCode).toBe(0);
    expect(readFileSync(join(xdg, "autoloop", "config.toml"), "utf8")).toBe(
      "[event_loop]\nstall_iterations = 5\n",
    );
    const noScope = await al(["config", "set", "--preset", "stopper", "a.b=1"]);
    expect([noScope.exitCode, noScope.stderr]).toEqual([
      1,
      expect.stringContaining("--user (yours) or --repo"),
    ]);
  }, 30_000);
});

describe("autoloop capabilities and triage", () => {
  it("describe the CLI and the work dir in one call each", async () => {
    const caps = await al(["capabilities"]);
    expect(caps.exitCode).toBe(0);
    const doc = json(caps.stdout);
    expect(doc).toMatchObject({
      name: "autoloop",
      contract_version: 1,
      exit_codes: { "1": expect.any(String), "2": expect.any(String) },
    });
    expect((doc.commands as Array<{ name: string }>).map((c) => c.name)).toEqual(
      expect.arrayContaining(["loops", "doctor", "triage", "config", "runs", "capabilities"]),
    );
    expect(doc.backends).toMatchObject({ supported: ["claude", "codex", "gemini", "command"] });
    const triage = await al(["triage", "--json"]);
    expect(triage.exitCode, triage.stderr).toBe(0);
    expect(json(triage.stdout)).toMatchObject({
      quick_ref: { active_runs: 2, doctor_failures: 0 },
      health: { stuck: { run_ids: ["run-quiet"] } },
      recommended_commands: expect.arrayContaining([
        "autoloop doctor --json",
        "autoloop loops health",
      ]),
    });
    expect((await al(["triage", "extra", "--nope"])).exitCode).toBe(1);
    const verbs = ["loops", "doctor", "triage", "verify", "config", "capabilities", "preset"];
    const helps = await Promise.all([
      ...verbs.map((v) => al([v, "--help"])),
      al(["runs", "clean", "--help"]),
    ]);
    for (const h of helps)
      expect([h.exitCode, h.stdout]).toEqual([0, expect.stringMatching(/^Usage: autoloop /)]);
  });
});

describe("autoloop verify", () => {
  it("re-runs the preset's acceptance checks and journals the verdict", async () => {
    const ok = join(dir, "ok.flag");
    // The check passes when the run completes (its acceptance gate runs it too), then the
    // flag goes: what verify is for, a claim that no longer holds.
    const checked = scriptPreset(dir, {
      name: "checked",
      script: `touch ${JSON.stringify(ok)}; exec "$AUTOLOOP_BIN" emit task.complete ok`,
    });
    appendFileSync(
      join(checked, "autoloops.toml"),
      `[acceptance]\nverify_cmds = ["test -f ${ok}"]\n`,
    );
    expect((await al(["run", checked, "check me", "--run-id", "run-checked-1"])).exitCode).toBe(0);
    rmSync(ok);
    const falseDone = await al(["verify"]);
    expect([falseDone.exitCode, falseDone.stdout]).toEqual([
      1,
      expect.stringMatching(
        /^## Post-fire verify — run-checked-1 → false_done\n\nFALSE DONE: 1\/1 check/,
      ),
    ]);
    writeFileSync(ok, "");
    const confirmed = await al(["verify", "run-checked", "--json"]);
    expect(confirmed.exitCode, confirmed.stderr).toBe(0);
    expect(json(confirmed.stdout)).toEqual({
      run_id: "run-checked-1",
      reconcile: "confirmed",
      ranChecks: 1,
      failures: [],
    });
    const last = readFileSync(join(dir, ".autoloop", "journal.jsonl"), "utf8")
      .trim()
      .split("\n")
      .at(-1)!;
    expect(JSON.parse(last)).toMatchObject({
      run: "run-checked-1",
      topic: "postfire.verify",
      fields: { reconcile: "confirmed", ran_checks: "1", failed: "0" },
    });
    // Checks changed since the run started (its agent could have) are not run unasked.
    appendFileSync(join(checked, "autoloops.toml"), 'timeout = "1m"\n');
    const changed = await al(["verify", "run-checked-1"]);
    expect([changed.exitCode, changed.stderr]).toEqual([
      2,
      expect.stringContaining("changed since run run-checked-1 started"),
    ]);
    const accepted = await al(["verify", "run-checked-1", "--accept-preset-changes"]);
    expect(accepted.exitCode, accepted.stdout + accepted.stderr).toBe(0);
    // A run this harness did not launch has no launch record: nothing trusted to check it with.
    expect((await al(["verify", "run-quiet"])).exitCode).toBe(2);
  }, 30_000);
});

describe("autoloop preset promote", () => {
  it("installs a checked single-file preset that `run <name>` then finds", async () => {
    const agent = join(done, "agent.sh");
    const source = join(dir, "mine.toml");
    writeFileSync(
      source,
      `[event_loop]\nmax_iterations = 2\n[backend]\ncommand = ${JSON.stringify(agent)}\nprompt_mode = "file"\n`,
    );
    const promoted = await al(["preset", "promote", source, "mine"]);
    expect(promoted.exitCode, promoted.stderr).toBe(0);
    expect(existsSync(join(xdg, "autoloop", "presets", "mine.toml"))).toBe(true);
    const ran = await al(["run", "mine", "by name", "--json"]);
    expect(ran.exitCode, ran.stderr).toBe(0);
    const again = await al(["preset", "promote", source, "mine"]);
    expect([again.exitCode, again.stderr]).toEqual([
      1,
      expect.stringContaining("preset mine already exists"),
    ]);
    writeFileSync(source, '[event_loop]\nmax_iterations = 0\n[backend]\ncommand = "x"\n');
    const invalid = await al(["preset", "promote", source, "other"]);
    expect([invalid.exitCode, invalid.stderr]).toEqual([
      1,
      expect.stringContaining("event_loop.max_iterations"),
    ]);
    // A spawn of a preset no spawn could run is refused; limits left out are a warning.
    writeFileSync(source, '[backend]\ncommand = "x"\n[chain_spawn]\npresets = ["nope"]\n');
    const spawns = await al(["preset", "promote", source, "spawner"]);
    expect([spawns.exitCode, spawns.stderr]).toEqual([
      1,
      expect.stringMatching(
        /warning: chain_spawn: no max_depth[\s\S]*chain_spawn\.presets: found "nope"/,
      ),
    ]);
  }, 30_000);
});
