import {
  appendFileSync,
  closeSync,
  mkdirSync,
  openSync,
  renameSync,
  writeFileSync,
  writeSync,
} from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { JournalFollower, type WatchDirectory } from "../../src/journal/follower.js";
import { expandJournalGlobs } from "../../src/journal/journal-globs.js";
import { Collector, spacedLine, tempDir } from "./follower-helpers.js";

let dir: string;
let cleanup: () => void;
let follower: JournalFollower | undefined;

beforeEach(() => {
  ({ dir, cleanup } = tempDir());
});
afterEach(async () => {
  await follower?.stop();
  follower = undefined;
  cleanup();
});

const HOUR = 3_600_000;
const neverFires: WatchDirectory = () => ({ close() {} });
const unwatchable: WatchDirectory = () => {
  throw Object.assign(new Error("watch unsupported"), { code: "ENOSYS" });
};

/** A follower woken by fs.watch alone (no polling to speak of), on `journal.jsonl` in `dir`. */
function watchedFollower(c: Collector, resets: string[] = []) {
  const journal = join(dir, "journal.jsonl");
  const f = new JournalFollower({
    onLines: c.onLines,
    onReset: (_path, reason) => resets.push(reason),
    pollIntervalMs: HOUR,
    safetyPollMs: HOUR,
    debounceMs: 5,
  });
  follower = f;
  f.add(journal);
  return { journal, f };
}

describe("JournalFollower wake-ups", () => {
  it("reads appends as fs.watch reports them (no polling)", async () => {
    const c = new Collector();
    const { journal, f } = watchedFollower(c);
    await f.start(); // the journal does not exist yet: creation must be noticed
    writeFileSync(journal, spacedLine("r1", "loop.start"));
    await c.waitForRecords(1);
    appendFileSync(journal, spacedLine("r1", "iteration.start"));
    await c.waitForRecords(2);
    expect(c.topics()).toEqual(["loop.start", "iteration.start"]);
    expect(f.status()[0]!.watched).toBe(true);
  });

  it("drains a file its writer still appends to after a rotation, then reads the new one", async () => {
    const c = new Collector();
    const resets: string[] = [];
    const { journal, f } = watchedFollower(c, resets);
    await f.start();
    // Like the harness's appender: one descriptor held open across appends.
    const writer = openSync(journal, "a");
    writeSync(writer, spacedLine("r1", "a"));
    await c.waitForRecords(1);
    // Rotated: renamed away; its writer still appends there; a new journal takes the name.
    // All in one turn, so one wake-up sees it all: the old file has news, and the name moved.
    renameSync(journal, join(dir, "journal.1"));
    writeSync(writer, spacedLine("r1", "b"));
    writeFileSync(journal, spacedLine("r2", "x") + spacedLine("r2", "y"));
    await c.waitForRecords(4);
    closeSync(writer);
    expect(c.topics()).toEqual(["a", "b", "x", "y"]);
    expect(resets).toEqual(["rotated"]);
  });

  it("reads a burst larger than a quick poll's read-ahead to its end", async () => {
    const c = new Collector();
    const { journal, f } = watchedFollower(c);
    writeFileSync(journal, spacedLine("r1", "first"));
    await f.start();
    await c.waitForRecords(1);
    // ~200 KB in one append: the read-ahead (64 KiB) takes part, the path's size the rest.
    const burst = Array.from({ length: 400 }, (_, i) =>
      spacedLine("r1", `t${i}`, "x".repeat(400)),
    ).join("");
    expect(burst.length).toBeGreaterThan(3 * 64 * 1024);
    appendFileSync(journal, burst);
    await c.waitForRecords(401);
    await f.poll(); // queued behind the background poll: its counts are in
    expect(c.topics().at(-1)).toBe("t399");
    expect(f.status()[0]).toMatchObject({ lagBytes: 0, records: 401 });
  });

  it("polls journals whose directory cannot be watched, and picks up a late directory", async () => {
    const journal = join(dir, "project", ".autoloop", "journal.jsonl");
    const c = new Collector();
    follower = new JournalFollower({
      onLines: c.onLines,
      pollIntervalMs: 10,
      safetyPollMs: HOUR,
      deps: { watch: unwatchable },
    });
    follower.add(journal);
    await follower.start();
    mkdirSync(join(dir, "project", ".autoloop"), { recursive: true });
    writeFileSync(journal, spacedLine("r1", "a"));
    await c.waitForRecords(1);
    appendFileSync(journal, spacedLine("r1", "b"));
    await c.waitForRecords(2);
    expect(c.topics()).toEqual(["a", "b"]);
    expect(follower.status()[0]!.watched).toBe(false);
  });

  it("falls back on the safety poll when fs.watch misses events", async () => {
    const journal = join(dir, "journal.jsonl");
    const c = new Collector();
    follower = new JournalFollower({
      onLines: c.onLines,
      pollIntervalMs: 10,
      safetyPollMs: 20,
      deps: { watch: neverFires },
    });
    follower.add(journal);
    await follower.start();
    appendFileSync(journal, spacedLine("r1", "a"));
    await c.waitForRecords(1);
    expect(c.topics()).toEqual(["a"]);
    expect(follower.status()[0]!.watched).toBe(true);
  });

  it("follows journals of new projects found by re-expanding the globs", async () => {
    const journalOf = (p: string) => join(dir, p, ".autoloop", "journal.jsonl");
    for (const p of ["alpha", "beta"]) {
      mkdirSync(join(dir, p, ".autoloop"), { recursive: true });
      writeFileSync(journalOf(p), spacedLine(p, "loop.start"));
    }
    const c = new Collector();
    follower = new JournalFollower({
      onLines: c.onLines,
      discover: () => expandJournalGlobs(["*/.autoloop/journal.jsonl"], dir),
      discoverIntervalMs: 10,
      pollIntervalMs: 10,
    });
    await follower.start();
    expect(follower.paths().sort()).toEqual([journalOf("alpha"), journalOf("beta")]);
    expect(
      c
        .records()
        .map((r) => r.run)
        .sort(),
    ).toEqual(["alpha", "beta"]);
    mkdirSync(join(dir, "gamma", ".autoloop"), { recursive: true });
    writeFileSync(journalOf("gamma"), spacedLine("gamma", "loop.start"));
    await c.waitForRecords(3);
    expect(c.records()[2]!.run).toBe("gamma");
  });
});

describe("expandJournalGlobs", () => {
  it("finds journals under dot folders and keeps literal paths that do not exist yet", async () => {
    mkdirSync(join(dir, "a", ".autoloop"), { recursive: true });
    writeFileSync(join(dir, "a", ".autoloop", "journal.jsonl"), "");
    mkdirSync(join(dir, "node_modules", "x", ".autoloop"), { recursive: true });
    writeFileSync(join(dir, "node_modules", "x", ".autoloop", "journal.jsonl"), "");
    const found = await expandJournalGlobs(
      ["**/.autoloop/journal.jsonl", "later/.autoloop/journal.jsonl"],
      dir,
    );
    expect(found).toEqual([
      join(dir, "a", ".autoloop", "journal.jsonl"),
      join(dir, "later", ".autoloop", "journal.jsonl"),
    ]);
  });

  it("expands `<dir>/*/<rest>` itself exactly as tinyglobby would", async () => {
    for (const name of ["a", ".hidden", "b c", "no-journal", "journal-is-a-dir"])
      mkdirSync(join(dir, "projects", name, ".autoloop"), { recursive: true });
    for (const name of ["a", ".hidden", "b c"])
      writeFileSync(join(dir, "projects", name, ".autoloop", "journal.jsonl"), "");
    mkdirSync(join(dir, "projects", "journal-is-a-dir", ".autoloop", "journal.jsonl"));
    writeFileSync(join(dir, "projects", "a-file"), "");
    const pattern = "projects/*/.autoloop/journal.jsonl";
    const found = await expandJournalGlobs([pattern], dir);
    expect(found).toEqual(
      ["a", ".hidden", "b c"]
        .map((n) => join(dir, "projects", n, ".autoloop", "journal.jsonl"))
        .sort(),
    );
    // The same answer through tinyglobby (a second dynamic segment sends it there).
    expect(await expandJournalGlobs(["projects/*/.autoloop/journal.json[l]"], dir)).toEqual(found);
    expect(await expandJournalGlobs(["missing/*/.autoloop/journal.jsonl"], dir)).toEqual([]);
  });

  it("accepts absolute patterns", async () => {
    mkdirSync(join(dir, "p", ".autoloop"), { recursive: true });
    writeFileSync(join(dir, "p", ".autoloop", "journal.jsonl"), "");
    const found = await expandJournalGlobs([join(dir, "*", ".autoloop", "journal.jsonl")], "/");
    expect(found).toEqual([join(dir, "p", ".autoloop", "journal.jsonl")]);
  });
});
