// memory compact and prune: the file keeps its live entries with their ids; old entries are
// tombstoned by age and type; ids given after a compaction never collide with live ones.
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { MemoryStore } from "../../src/harness/memory/store.js";
import { autoloop, cleanupTempDirs, tempDir } from "../helpers/cli.js";

afterEach(cleanupTempDirs);

const lines = (file: string) =>
  readFileSync(file, "utf8")
    .trim()
    .split("\n")
    .map((l) => JSON.parse(l));

describe("memory compact", () => {
  it("keeps live entries with their ids, drops tombstones, removed and replaced entries", () => {
    const file = join(tempDir(), "memory.jsonl");
    const store = new MemoryStore(file);
    const a = store.add({ type: "learning", text: "keep me" });
    const b = store.add({ type: "learning", text: "remove me" });
    store.add({ type: "meta", key: "k", value: "old" });
    const m2 = store.add({ type: "meta", key: "k", value: "new" });
    store.remove(b.id, "stale");
    expect(store.compact()).toEqual({ kept: 2, dropped: 3 });
    expect(lines(file).map((e) => [e.id, e.type])).toEqual([
      [a.id, "learning"],
      [m2.id, "meta"],
    ]);
    expect(store.view().meta[0]?.value).toBe("new");
    // A new entry never takes a live id.
    const c = store.add({ type: "learning", text: "after" });
    expect([a.id, m2.id]).not.toContain(c.id);
    expect(store.compact()).toEqual({ kept: 3, dropped: 0 });
  });
});

describe("memory prune", () => {
  it("tombstones entries older than the age, of the given types, from the CLI", async () => {
    const dir = tempDir();
    const file = join(dir, ".autoloop", "memory.jsonl");
    await autoloop(["memory", "add", "learning", "--project", "recent lesson"], { cwd: dir });
    // Two entries written long ago, as the public autoloop writes them.
    const old = [
      '{"id": "mem-10", "type": "learning", "text": "ancient lesson", "source": "manual", "created": "2020-01-01T00:00:00Z"}',
      '{"id": "mem-11", "type": "preference", "category": "Style", "text": "ancient taste", "created": "2020-01-01T00:00:00Z"}',
    ];
    writeFileSync(file, `${readFileSync(file, "utf8")}${old.join("\n")}\n`);
    const r = await autoloop(["memory", "prune", "--older-than", "30d", "--type", "learning"], {
      cwd: dir,
    });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stdout).toContain("pruned [mem-10] (manual) ancient lesson");
    expect(r.stdout).toContain("1 entries pruned");
    const list = (await autoloop(["memory", "list"], { cwd: dir })).stdout;
    expect(list).toContain("recent lesson");
    expect(list).toContain("ancient taste");
    expect(list).not.toContain("ancient lesson");
    const tomb = lines(file).at(-1);
    expect(tomb).toMatchObject({
      type: "tombstone",
      target_id: "mem-10",
      reason: "pruned: older than 30d",
    });
    const compact = await autoloop(["memory", "compact"], { cwd: dir });
    expect(compact.stdout).toContain("2 live entries kept, 2 lines dropped");
    expect((await autoloop(["memory", "prune"], { cwd: dir })).stderr).toContain(
      "--older-than needs a duration",
    );
  });
});

describe("memory compact with lines it cannot read", () => {
  it("refuses, and changes nothing", () => {
    const file = join(tempDir(), "memory.jsonl");
    const store = new MemoryStore(file);
    store.add({ type: "learning", text: "keep me" });
    writeFileSync(file, `${readFileSync(file, "utf8")}{"id": "x-1", "type": "mystery"}\n`);
    const before = readFileSync(file, "utf8");
    expect(() => store.compact()).toThrow("1 line(s) are not memory entries");
    expect(readFileSync(file, "utf8")).toBe(before);
  });
});
