// Plain mistakes get a plain answer: the file, field or value, and the fix, with exit 2 (or 1
// for a lookup that found nothing), never a stack trace and never "nothing found" with exit 0.
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { execa } from "execa";
import { afterEach, describe, expect, it } from "vitest";
import { AUTOLOOP_CRON, autoloop, cleanEnv, cleanupTempDirs, tempDir } from "../helpers/cli.js";

afterEach(cleanupTempDirs);

const cron = (cwd: string, ...args: string[]) =>
  execa(process.execPath, [AUTOLOOP_CRON, ...args], {
    cwd,
    env: cleanEnv(),
    extendEnv: false,
    reject: false,
  });

describe("autoloop-cron, given a plain mistake", () => {
  it("a folder for --config, an unknown log level, a string left open", async () => {
    const dir = tempDir();
    mkdirSync(join(dir, "conf"));
    const folder = await cron(dir, "validate", "--config", "conf");
    expect(folder.exitCode).toBe(2);
    expect(folder.stderr).toBe(
      "autoloop-cron: conf: is a folder, not a config file; pass the file, e.g. --config conf/autoloop-cron.toml",
    );
    writeFileSync(join(dir, "autoloop-cron.toml"), 'state_dir = "state"\n[http]\nlisten = ""\n');
    const loud = await cron(dir, "start", "--config", "autoloop-cron.toml", "--log-level", "loud");
    expect(loud.exitCode).toBe(2);
    expect(loud.stderr).toContain('--log-level "loud": not a log level; use one of trace, debug');
    expect(loud.stderr).not.toContain("    at ");
    writeFileSync(join(dir, "open.toml"), 'state_dir = "state\n');
    const open = await cron(dir, "validate", "--config", "open.toml");
    expect(open.exitCode).toBe(2);
    expect(open.stderr).toContain(
      "open.toml: line 1: found a string that is not closed on its line",
    );
  });
});

describe("autoloop lookups that find nothing", () => {
  it("say what was not found and exit non-zero, once, with no doubled prefix", async () => {
    const dir = tempDir();
    expect((await autoloop(["run", "demo", "x", "--quiet"], { cwd: dir })).exitCode).toBe(0);
    const unknown = await autoloop(["inspect", "journal", "--run", "run-nope"], { cwd: dir });
    expect(unknown.exitCode).toBe(1);
    expect(unknown.stderr).toMatch(
      /^autoloop inspect journal: no run run-nope in .*journal\.jsonl;/,
    );
    const gone = await autoloop(["inspect", "journal", "--work-dir", "/nonexistent"], { cwd: dir });
    expect(gone.exitCode).toBe(2);
    expect(gone.stderr).toContain("--work-dir /nonexistent does not exist");
    const tasks = await autoloop(["task", "list", "/nonexistent"], { cwd: dir });
    expect(tasks.exitCode).toBe(2);
    expect(tasks.stderr).toContain("the project folder /nonexistent does not exist");
  });
});

describe("listing runs", () => {
  it("says why a run ended even without a stop reason (its exit code), newest first as everywhere", async () => {
    const dir = tempDir();
    mkdirSync(join(dir, "schedules"));
    mkdirSync(join(dir, "work"));
    writeFileSync(join(dir, "autoloop-cron.toml"), 'state_dir = "state"\n[http]\nlisten = ""\n');
    writeFileSync(
      join(dir, "schedules", "s.toml"),
      `[[schedule]]\nname = "exits-3"\ncron = "0 3 * * *"\nkind = "command"\ncommand = [${JSON.stringify(process.execPath)}, "-e", "process.exit(3)"]\nproject_dir = "../work"\n`,
    );
    expect((await cron(dir, "fire", "exits-3", "--config", "autoloop-cron.toml")).exitCode).toBe(1);
    const runs = await cron(dir, "runs", "--config", "autoloop-cron.toml");
    expect(runs.stdout).toMatch(/exits-3\s+failed\s+\S+\s+\d+s\s+exit 3/);

    const project = tempDir();
    for (const _ of [1, 2]) await autoloop(["run", "demo", "x", "--quiet"], { cwd: project });
    const listed = await autoloop(["inspect", "runs", "--json"], { cwd: project });
    const created = (JSON.parse(listed.stdout) as Array<{ created_at: string }>).map(
      (r) => r.created_at,
    );
    expect(created).toEqual([...created].sort().reverse());
  }, 60_000);
});
