// LineAppender: whole lines on an O_APPEND descriptor, fsynced at once or deferred.
import { appendFileSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { LineAppender } from "../../src/journal/append.js";
import { cleanupTempDirs, tempDir } from "../helpers/cli.js";

afterEach(cleanupTempDirs);

const openFds = (): number => readdirSync("/proc/self/fd").length;

describe("LineAppender", () => {
  it("appends whole lines, ending a torn last line first, and refuses a newline inside", () => {
    const path = join(tempDir(), "a.jsonl");
    appendFileSync(path, '{"torn":');
    const appender = new LineAppender(path);
    appender.appendLine('{"n":1}');
    expect(() => appender.appendLine('{"n":\n2}')).toThrow(/newline/);
    appender.close();
    expect(readFileSync(path, "utf8")).toBe('{"torn":\n{"n":1}\n');
  });

  it("deferred: each line is in the file at once; durable() resolves once a burst is synced", async () => {
    const path = join(tempDir(), "a.jsonl");
    const fds = openFds();
    const appender = new LineAppender(path, { fsync: "deferred" });
    for (let n = 0; n < 50; n++) {
      appender.appendLine(`{"n":${n}}`);
      // Written with write(2) before anything is awaited: readers see it now.
      expect(readFileSync(path, "utf8").trimEnd().split("\n")).toHaveLength(n + 1);
    }
    await appender.durable();
    await appender.durable(); // nothing left: resolves at once
    appender.appendLine('{"n":50}');
    appender.close(); // fsyncs what the pool has not yet
    await appender.durable();
    expect(readFileSync(path, "utf8").trimEnd().split("\n")).toHaveLength(51);
    expect(openFds()).toBe(fds);
  });

  it("deferred: a failed fsync is reported, and durable() rejects until one succeeds", async () => {
    const errors: Error[] = [];
    // fsync(2) on /dev/null fails with EINVAL.
    const appender = new LineAppender("/dev/null", {
      fsync: "deferred",
      onSyncError: (err) => errors.push(err),
    });
    appender.appendLine("{}");
    // Written, not known to be on disk: durable() says so until an fsync succeeds.
    await expect(appender.durable()).rejects.toThrow(/EINVAL/);
    await expect(appender.durable()).rejects.toThrow(/EINVAL/);
    expect(errors.map((e) => (e as NodeJS.ErrnoException).code)).toEqual(["EINVAL"]);
    const fds = openFds();
    appender.appendLine("{}");
    appender.close(); // its own fsync fails too: reported, and the fd is closed all the same
    expect(errors.map((e) => (e as NodeJS.ErrnoException).code)).toEqual(["EINVAL", "EINVAL"]);
    expect(openFds()).toBe(fds - 1);
  });
});
