// The harness's own files in a project an agent can write to: a journal that is a link or a
// FIFO is refused (never written through, never waited on), a NUL in memory breaks no later
// run, and a disk that filled mid-line leaves no two lines glued together.
import { execFileSync, spawnSync } from "node:child_process";
import { mkdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { decodeTaskEntry } from "../../src/harness/tasks/entry.js";
import { AUTOLOOP, autoloop, cleanupTempDirs, tempDir } from "../helpers/cli.js";
import { journalOf } from "../helpers/journal.js";

afterEach(cleanupTempDirs);

describe("the harness's journal, when a run or a clone put something else there", () => {
  it("a link: refused with exit 1, the file it points to untouched", async () => {
    const dir = tempDir();
    const target = join(tempDir("autoloop-elsewhere-"), "precious.txt");
    writeFileSync(target, "keep me\n");
    mkdirSync(join(dir, ".autoloop"));
    symlinkSync(target, join(dir, ".autoloop/journal.jsonl"));
    const run = await autoloop(["run", "demo", "x", "--quiet"], { cwd: dir });
    expect(run.exitCode).toBe(1);
    expect(run.stderr).toContain("journal.jsonl is a symbolic link");
    expect(run.stderr).not.toContain("    at ");
    expect(readFileSync(target, "utf8")).toBe("keep me\n");
  });

  it("a FIFO: refused at once, nothing waits for a writer", async () => {
    const dir = tempDir();
    mkdirSync(join(dir, ".autoloop"));
    execFileSync("mkfifo", [join(dir, ".autoloop/journal.jsonl")]);
    const run = await autoloop(["run", "demo", "x", "--quiet"], { cwd: dir });
    expect(run.exitCode).toBe(1);
    expect(run.stderr).toContain("is not a regular file");
  });
});

describe("a NUL in loop memory", () => {
  it("breaks no run: the prompt goes by file and on stdin, not in an environment string", async () => {
    const dir = tempDir();
    mkdirSync(join(dir, ".autoloop"));
    writeFileSync(
      join(dir, ".autoloop/memory.jsonl"),
      '{"id": "mem-1", "type": "learning", "text": "nul \\u0000 here", "source": "manual", "created": "2026-11-27T00:00:00Z"}\n',
    );
    for (const _ of [1, 2]) {
      const run = await autoloop(["run", "demo", "x", "--quiet"], { cwd: dir });
      expect(run.exitCode, run.stderr).toBe(0);
    }
    expect(journalOf(dir).filter((r) => r.topic === "loop.complete")).toHaveLength(2);
  });
});

// A 64 KiB tmpfs in a user and mount namespace of its own (no root needed where user
// namespaces are allowed); skipped where the machine allows neither.
const canMount =
  spawnSync("unshare", ["-rm", "sh", "-c", "mount -t tmpfs -o size=64k tmpfs /tmp"]).status === 0;

describe.skipIf(!canMount)("a disk that fills in the middle of a line", () => {
  it("leaves the torn line alone: the next append ends it first, no two lines glued", () => {
    const dir = tempDir();
    const disk = join(dir, "disk");
    mkdirSync(disk);
    const big = "x".repeat(3000);
    // Fill the disk to a few KiB, add tasks until one fails mid-line, free space, add one more.
    const script = `
      mount -t tmpfs -o size=64k tmpfs "$DISK" || exit 99
      head -c 57000 /dev/zero > "$DISK/filler"
      for i in 1 2 3 4; do "$NODE" "$AUTOLOOP" task add "$BIG $i" >/dev/null 2>&1; done
      rm "$DISK/filler"
      "$NODE" "$AUTOLOOP" task add "after the disk was freed" || exit 98
      cp "$DISK/tasks.jsonl" "$OUT"
    `;
    const out = join(dir, "tasks.jsonl");
    const r = spawnSync("unshare", ["-rm", "sh", "-c", script], {
      env: {
        PATH: process.env.PATH,
        DISK: disk,
        NODE: process.execPath,
        AUTOLOOP,
        BIG: big,
        OUT: out,
        AUTOLOOP_TASKS_FILE: join(disk, "tasks.jsonl"),
      },
      encoding: "utf8",
    });
    expect(r.status, r.stderr).toBe(0);
    const lines = readFileSync(out, "utf8").trimEnd().split("\n");
    const entries = lines.map((l) => decodeTaskEntry(l));
    // At least one add failed part-way: its line is torn, and it stands alone.
    expect(entries.filter((e) => e === undefined).length).toBeGreaterThanOrEqual(1);
    const good = entries.filter((e) => e !== undefined);
    expect(good.at(-1)).toMatchObject({ text: "after the disk was freed" });
    for (const line of lines) expect(line.length).toBeLessThan(big.length + 400);
  });
});

describe("an agent that prints its key", () => {
  it("leaves it in no journal field, payload or log line: [REDACTED] instead", async () => {
    const dir = tempDir();
    const key = "sk-test-0123456789abcdef";
    const envFile = join(dir, "agent.env");
    writeFileSync(envFile, `AGENT_KEY=${key}\n`, { mode: 0o600 });
    const preset = join(dir, "leaky");
    mkdirSync(preset);
    // The agent echoes its key, and emits it as an event's payload through the event tool.
    writeFileSync(
      join(preset, "autoloops.toml"),
      `[event_loop]\nmax_iterations = 1\n[backend]\ncommand = "sh"\nargs = ["-c", 'echo "my key is $AGENT_KEY"; "$AUTOLOOP_BIN" emit note.leak "key=$AGENT_KEY"; echo LOOP_COMPLETE']\n`,
    );
    const run = await autoloop(["run", preset, "x", "--env-file", envFile], { cwd: dir });
    expect(run.exitCode, run.stderr).toBe(0);
    const journal = readFileSync(join(dir, ".autoloop/journal.jsonl"), "utf8");
    expect(journal).toContain("my key is [REDACTED]");
    expect(journal).toContain("key=[REDACTED]");
    expect(journal).not.toContain(key);
    expect(run.stderr).not.toContain(key);
  });
});
