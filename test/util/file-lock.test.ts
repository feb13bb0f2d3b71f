import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import { hostname, tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { FOREIGN_LOCK_STALE_MS, lockOwner, withFileLock } from "../../src/util/file-lock.js";

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function target(): string {
  const dir = mkdtempSync(join(tmpdir(), "autoloop-lock-"));
  dirs.push(dir);
  return join(dir, "tasks.jsonl");
}

/** The pid of a process that has exited (a real one, so the number was really used). */
function deadPid(): number {
  const child = spawnSync(process.execPath, ["-e", "process.stdout.write(String(process.pid))"]);
  return Number(child.stdout.toString());
}

describe("withFileLock", () => {
  it("writes its pid and host into the lock and removes it afterwards", () => {
    const path = target();
    const seen = withFileLock(path, () => lockOwner(readFileSync(`${path}.lock`, "utf8")));
    expect(seen).toEqual({ pid: process.pid, host: hostname() });
    expect(existsSync(`${path}.lock`)).toBe(false);
  });

  it("takes over a lock left by a dead process on this host, in either format", () => {
    for (const content of [
      JSON.stringify({ pid: deadPid(), host: hostname() }),
      String(deadPid()),
    ]) {
      const path = target();
      writeFileSync(`${path}.lock`, content);
      expect(withFileLock(path, () => "ran", 2_000)).toBe("ran");
    }
  });

  it("never judges another host's pid: its fresh lock holds, an abandoned one is taken over", () => {
    const path = target();
    // A pid that is dead here says nothing about the pod that wrote it.
    writeFileSync(`${path}.lock`, JSON.stringify({ pid: deadPid(), host: "other-pod-7f9c" }));
    expect(() => withFileLock(path, () => "ran", 100)).toThrow(
      /still locked after 100 ms; if no autoloop process is running, delete the file/,
    );
    const old = (Date.now() - FOREIGN_LOCK_STALE_MS - 5_000) / 1000;
    utimesSync(`${path}.lock`, old, old);
    expect(withFileLock(path, () => "ran", 2_000)).toBe("ran");
  });

  it("waits out an empty lock (being written) until it is abandoned", () => {
    const path = target();
    writeFileSync(`${path}.lock`, "");
    expect(() => withFileLock(path, () => "ran", 100)).toThrow(/still locked/);
    const old = (Date.now() - FOREIGN_LOCK_STALE_MS - 5_000) / 1000;
    utimesSync(`${path}.lock`, old, old);
    expect(withFileLock(path, () => "ran", 2_000)).toBe("ran");
  });
});
