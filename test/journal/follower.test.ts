import {
  appendFileSync,
  existsSync,
  readFileSync,
  renameSync,
  truncateSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { JournalFollower, type ResetReason } from "../../src/journal/follower.js";
import { Collector, compactLine, spacedLine, tempDir } from "./follower-helpers.js";

let dir: string;
let cleanup: () => void;
let journal: string;
let positionsFile: string;

beforeEach(() => {
  ({ dir, cleanup } = tempDir());
  journal = join(dir, "journal.jsonl");
  positionsFile = join(dir, "state", "monitor", "positions.json");
});
/** Every follower a test makes, stopped in teardown (its timers and watchers with it). */
const followers: JournalFollower[] = [];
afterEach(async () => {
  for (const f of followers.splice(0)) await f.stop();
  cleanup();
});

function tracked(options: ConstructorParameters<typeof JournalFollower>[0]): JournalFollower {
  const f = new JournalFollower(options);
  followers.push(f);
  return f;
}

function follower(collector: Collector, extra: { chunkBytes?: number } = {}) {
  const resets: ResetReason[] = [];
  const f = tracked({
    positionsFile,
    onLines: collector.onLines,
    onReset: (_path, reason) => resets.push(reason),
    ...extra,
  });
  f.add(journal);
  return { f, resets };
}

describe("JournalFollower.poll", () => {
  it("delivers exactly the records appended since the last poll", async () => {
    const c = new Collector();
    const { f } = follower(c);
    await f.poll(); // the journal does not exist yet
    expect(c.batches).toEqual([]);
    writeFileSync(journal, spacedLine("r1", "loop.start") + spacedLine("r1", "iteration.start"));
    await f.poll();
    expect(c.topics()).toEqual(["loop.start", "iteration.start"]);
    appendFileSync(journal, spacedLine("r1", "backend.finish"));
    await f.poll();
    await f.poll();
    expect(c.topics()).toEqual(["loop.start", "iteration.start", "backend.finish"]);
    const last = c.batches.at(-1)!.batch;
    expect(last.endOffset).toBe(readFileSync(journal).length);
    expect(f.status()[0]).toMatchObject({ lagBytes: 0, records: 3, skippedLines: 0, resets: 0 });
  });

  it("resumes from the saved position after a restart: no repeats, no misses", async () => {
    writeFileSync(journal, spacedLine("r1", "a") + spacedLine("r1", "b"));
    const first = new Collector();
    const a = follower(first).f;
    await a.poll();
    await a.stop();
    appendFileSync(journal, spacedLine("r1", "c"));
    const saved = JSON.parse(readFileSync(positionsFile, "utf8"));
    expect(Object.keys(saved.journals)).toEqual([journal]);

    const second = new Collector();
    const b = follower(second).f;
    await b.poll();
    expect(first.topics()).toEqual(["a", "b"]);
    expect(second.topics()).toEqual(["c"]);
  });

  it("replays a batch whose processing failed (at least once)", async () => {
    writeFileSync(journal, spacedLine("r1", "a"));
    let fail = true;
    const seen: string[] = [];
    const f = tracked({
      positionsFile,
      onError: () => {},
      onLines: (_p, batch) => {
        if (fail) throw new Error("alert state unavailable");
        seen.push(...batch.records.map((r) => r.topic));
      },
    });
    f.add(journal);
    await expect(f.poll()).rejects.toThrow("alert state unavailable");
    expect(f.position(journal)?.offset).toBe(0);
    fail = false;
    await f.poll();
    expect(seen).toEqual(["a"]);
  });

  it("holds back a torn last line until its newline arrives", async () => {
    const c = new Collector();
    const { f } = follower(c);
    const line = spacedLine("r1", "loop.stop", 'said "hi"\n');
    writeFileSync(journal, spacedLine("r1", "a") + line.slice(0, 20));
    await f.poll();
    expect(c.topics()).toEqual(["a"]);
    expect(f.status()[0]!.lagBytes).toBe(20);
    appendFileSync(journal, line.slice(20));
    await f.poll();
    expect(c.topics()).toEqual(["a", "loop.stop"]);
    expect(c.skipped()).toBe(0);
    expect(c.records()[1]).toMatchObject({ fields: { note: 'said "hi"\n' } });
  });

  it("reads a truncated journal again from the start", async () => {
    const c = new Collector();
    const { f, resets } = follower(c);
    writeFileSync(journal, spacedLine("r1", "a") + spacedLine("r1", "b"));
    await f.poll();
    truncateSync(journal, 0);
    appendFileSync(journal, spacedLine("r2", "c"));
    await f.poll();
    expect(c.topics()).toEqual(["a", "b", "c"]);
    expect(resets).toEqual(["truncated"]);
  });

  it("notices a file rewritten in place that grew past the old offset (hash check)", async () => {
    const c = new Collector();
    const { f, resets } = follower(c);
    writeFileSync(journal, spacedLine("r1", "a") + spacedLine("r1", "b"));
    await f.poll();
    await f.stop();
    const longer = ["x", "y", "z", "w"].map((t) => spacedLine("r2", t)).join("");
    writeFileSync(journal, longer); // same inode, bigger than the saved offset
    const c2 = new Collector();
    const again = follower(c2);
    await again.f.poll();
    expect(c2.topics()).toEqual(["x", "y", "z", "w"]);
    expect(again.resets).toEqual(["replaced"]);
    expect(resets).toEqual([]);
  });

  it("drains the old file, then reads a longer file renamed over it from 0", async () => {
    const c = new Collector();
    const { f, resets } = follower(c);
    writeFileSync(journal, spacedLine("r1", "a"));
    await f.poll();
    appendFileSync(journal, spacedLine("r1", "written-before-rotation"));
    const next = join(dir, "journal.next");
    writeFileSync(next, ["x", "y", "z"].map((t) => spacedLine("r2", t)).join(""));
    renameSync(next, journal);
    await f.poll();
    expect(c.topics()).toEqual(["a", "written-before-rotation", "x", "y", "z"]);
    expect(resets).toEqual(["rotated"]);
  });

  it("skips and counts garbage lines, decoding both byte styles", async () => {
    const c = new Collector();
    const { f } = follower(c);
    const tricky = 'quote " backslash \\ tab \t é 😀';
    writeFileSync(
      journal,
      spacedLine("r1", "spaced", tricky) +
        "not json at all\n" +
        '{"no": "run or topic"}\n' +
        "\n" +
        compactLine("r1", "compact", tricky),
    );
    expect(readFileSync(journal, "utf8")).toContain("\\u0022");
    await f.poll();
    expect(c.topics()).toEqual(["spaced", "compact"]);
    expect(c.records().map((r) => (r.shape === "system" ? r.fields.note : ""))).toEqual([
      tricky,
      tricky,
    ]);
    expect(c.skipped()).toBe(2);
    expect(f.status()[0]!.skippedLines).toBe(2);
  });

  it("splits lines correctly across chunk boundaries", async () => {
    const c = new Collector();
    const { f } = follower(c, { chunkBytes: 7 });
    const topics = Array.from({ length: 20 }, (_, i) => `t${i}`);
    writeFileSync(journal, topics.map((t) => compactLine("r", t, "é".repeat(i(t)))).join(""));
    await f.poll();
    expect(c.topics()).toEqual(topics);
    const ends = c.batches.map((b) => b.batch.endOffset);
    expect(ends.at(-1)).toBe(readFileSync(journal).length);
    for (let k = 1; k < c.batches.length; k++) {
      expect(c.batches[k]!.batch.startOffset).toBe(c.batches[k - 1]!.batch.endOffset);
    }
  });

  it("re-reads from 0 when the positions file is unreadable", async () => {
    writeFileSync(journal, spacedLine("r1", "a"));
    writeFileSync(join(dir, "bad.json"), "{ not json");
    const c = new Collector();
    const f = tracked({ positionsFile: join(dir, "bad.json"), onLines: c.onLines });
    expect(f.positionProblems[0]).toContain("bad.json");
    f.add(journal);
    await f.poll();
    expect(c.topics()).toEqual(["a"]);
  });
});

function i(topic: string): number {
  return Number(topic.slice(1)) % 5;
}

describe("JournalFollower.flushPositions", () => {
  it("writes positions only after beforeFlush's save resolved, and not when it failed", async () => {
    writeFileSync(journal, spacedLine("r1", "a"));
    const c = new Collector();
    let fail = true;
    const seen: boolean[] = [];
    const f = tracked({
      positionsFile,
      onLines: c.onLines,
      onError: () => {},
      beforeFlush: async () => {
        seen.push(existsSync(positionsFile));
        await new Promise((r) => setTimeout(r, 5));
        if (fail) throw new Error("disk full");
      },
    });
    f.add(journal);
    await f.poll();
    await expect(f.flushPositions()).rejects.toThrow("disk full");
    expect(existsSync(positionsFile)).toBe(false);
    fail = false;
    await f.stop(); // still dirty: written now
    expect(seen.every((exists) => !exists)).toBe(true);
    const saved = JSON.parse(readFileSync(positionsFile, "utf8"));
    expect(saved.journals[journal].offset).toBe(readFileSync(journal).length);
  });
});

/** A follower on a clock the test moves, counting its saves (`flushEveryMs` 5 s). */
function savingFollower(extra: { flushEarly?: () => boolean } = {}) {
  const state = { clock: 1_000_000, saves: 0 };
  const f = tracked({
    positionsFile,
    onLines: new Collector().onLines,
    beforeFlush: () => {
      state.saves++;
    },
    flushEveryMs: 5000,
    deps: { now: () => state.clock },
    ...extra,
  });
  f.add(journal);
  /** Appends a line with this topic and polls it. */
  const line = (topic: string) => {
    appendFileSync(journal, spacedLine("r1", topic));
    return f.poll();
  };
  return { f, state, line };
}

describe("JournalFollower periodic saves", () => {
  it("saves changed positions at most every flushEveryMs, and what is left on stop", async () => {
    const { f, state, line } = savingFollower();
    await line("a");
    expect(state.saves).toBe(1); // the first batch is saved at once
    await f.flushPositions(); // waits for that save; nothing else to save
    expect(state.saves).toBe(1);
    for (const topic of ["b", "c", "d"]) {
      state.clock += 1666;
      await line(topic);
    }
    expect(state.saves).toBe(1); // 4,998 ms later: not yet
    state.clock += 2;
    await line("e");
    expect(state.saves).toBe(2);
    await line("f");
    await f.stop();
    expect(state.saves).toBe(3);
    const saved = JSON.parse(readFileSync(positionsFile, "utf8"));
    expect(saved.journals[journal].offset).toBe(readFileSync(journal).length);
  });
});

describe("JournalFollower early saves", () => {
  it("saves before flushEveryMs when flushEarly says so, never within a second of the last", async () => {
    let early = false;
    const { f, state, line } = savingFollower({ flushEarly: () => early });
    await line("a");
    await f.flushPositions();
    expect(state.saves).toBe(1);
    early = true;
    state.clock += 999;
    await line("b");
    expect(state.saves).toBe(1); // asked, but within a second of the last save
    state.clock += 1;
    await line("c");
    expect(state.saves).toBe(2);
    await f.flushPositions();
    early = false;
    state.clock += 4999;
    await line("d");
    expect(state.saves).toBe(2); // not asked: the 5 s rule
  });
});
