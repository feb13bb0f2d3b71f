// Loop memory: the public autoloop's file format both ways, materialization, the prompt block
// with its budget, and the CLI inside and outside a run.
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { decodeMemoryEntry, encodeMemoryEntry } from "../../src/harness/memory/entry.js";
import { materializeMemory } from "../../src/harness/memory/materialize.js";
import { renderMemory } from "../../src/harness/memory/render.js";
import { MemoryStore } from "../../src/harness/memory/store.js";
import { autoloop, cleanupTempDirs, tempDir } from "../helpers/cli.js";
import { field, journalOf } from "../helpers/journal.js";

afterEach(cleanupTempDirs);

// Lines as the public autoloop writes them (docs/reference/memory.md), a tombstone included.
const REFERENCE = [
  '{"id": "mem-1", "type": "learning", "text": "Do not document task.progress as a normal emit example", "source": "manual", "created": "2026-03-27T01:00:19Z"}',
  '{"id": "mem-2", "type": "preference", "category": "Workflow", "text": "Always run tests before emitting review.ready", "created": "2026-03-27T02:00:00Z"}',
  '{"id": "meta-3", "type": "meta", "key": "smoke_iteration", "value": "1", "created": "2026-03-27T03:00:00Z"}',
  '{"id": "meta-4", "type": "meta", "key": "smoke_iteration", "value": "2", "created": "2026-03-27T03:30:00Z"}',
  '{"id": "mem-5", "type": "learning", "text": "say \\u0022hi\\u0022\\u000aon two lines", "source": "manual", "created": "2026-03-27T03:40:00Z"}',
  '{"id": "ts-6", "type": "tombstone", "target_id": "mem-1", "reason": "no longer applicable", "created": "2026-03-27T04:00:00Z"}',
];

describe("memory files", () => {
  it("read the reference's lines and write them back byte for byte", () => {
    for (const line of REFERENCE) expect(encodeMemoryEntry(decodeMemoryEntry(line)!)).toBe(line);
  });

  it("materialize: tombstones, one value per meta key, newest first", () => {
    const view = materializeMemory(REFERENCE.map((l) => decodeMemoryEntry(l)!));
    expect(view.learnings.map((e) => e.id)).toEqual(["mem-5"]);
    expect(view.preferences.map((e) => e.id)).toEqual(["mem-2"]);
    expect(view.meta.map((e) => [e.id, e.key === "smoke_iteration" && e.value])).toEqual([
      ["meta-4", "2"],
    ]);
  });

  it("assign ids after what the file holds, and append in the reference's style", () => {
    const path = join(tempDir(), "memory.jsonl");
    writeFileSync(path, `${REFERENCE.join("\n")}\n`);
    const store = new MemoryStore(path, () => new Date("2026-11-25T10:00:00.123Z"));
    expect(store.add({ type: "learning", text: "vitest, not jest" }).id).toBe("mem-7");
    expect(store.add({ type: "meta", key: "k", value: "v" }).id).toBe("meta-8");
    expect(store.remove("mem-404")).toBeUndefined();
    expect(store.remove("mem-2", "obsolete")?.id).toBe("mem-2");
    const lines = readFileSync(path, "utf8").trimEnd().split("\n").slice(-3);
    expect(lines).toEqual([
      '{"id": "mem-7", "type": "learning", "text": "vitest, not jest", "source": "manual", "created": "2026-11-25T10:00:00Z"}',
      '{"id": "meta-8", "type": "meta", "key": "k", "value": "v", "created": "2026-11-25T10:00:00Z"}',
      '{"id": "ts-9", "type": "tombstone", "target_id": "mem-2", "reason": "obsolete", "created": "2026-11-25T10:00:00Z"}',
    ]);
  });

  it("render project then run memory, and cut at the budget with a footer", () => {
    const project = materializeMemory(REFERENCE.map((l) => decodeMemoryEntry(l)!));
    const run = materializeMemory([
      { type: "learning", id: "mem-1", text: "x".repeat(50), source: "manual", created: "" },
    ]);
    const full = renderMemory(project, run, 0);
    expect(full.text.split("\n")).toEqual(
      [
        "Loop memory:",
        "Project memory:",
        "Preferences:",
        "- [mem-2] [Workflow] Always run tests before emitting review.ready",
        "Learnings:",
        '- [mem-5] (manual) say "hi"\non two lines',
        "Meta:",
        "- [meta-4] smoke_iteration: 2",
        "",
        "Run memory:",
        "Learnings:",
        `- [mem-1] (manual) ${"x".repeat(50)}`,
      ]
        .join("\n")
        .split("\n"),
    );
    const cut = renderMemory(project, run, 150);
    expect(cut.text.length).toBeLessThanOrEqual(150 + 100);
    expect(cut.text).toContain("(memory truncated: ");
    expect(cut.text).not.toContain("x".repeat(50));
    expect(cut.text).toContain("[mem-2]");
  });
});

describe("memory in a run", () => {
  it("reaches the prompt, and the event tool adds run and project memory", async () => {
    const dir = tempDir();
    mkdirSync(join(dir, ".autoloop"), { recursive: true });
    writeFileSync(join(dir, ".autoloop", "memory.jsonl"), `${REFERENCE[1]}\n`);
    const preset = tempDir("autoloop-preset-");
    // The agent: remembers two things through the event tool, then completes.
    const agent = join(preset, "agent.sh");
    writeFileSync(
      agent,
      '#!/bin/sh\n"$AUTOLOOP_BIN" memory add learning "the suite needs NODE_ENV=test" >/dev/null\n"$AUTOLOOP_BIN" memory add learning --project "builds need 4 GB" >/dev/null\necho LOOP_COMPLETE\n',
      { mode: 0o755 },
    );
    writeFileSync(
      join(preset, "autoloops.toml"),
      `[event_loop]\nmax_iterations = 2\n[backend]\ncommand = "/bin/sh"\nargs = [${JSON.stringify(agent)}]\nprompt_mode = "stdin"\n`,
    );
    const run = await autoloop(
      ["run", preset, "remember things", "--run-id", "mem-run-1", "--quiet"],
      { cwd: dir },
    );
    expect(run.exitCode).toBe(0);
    const prompt = field(
      journalOf(dir).find((r) => r.topic === "iteration.start"),
      "prompt",
    );
    expect(prompt).toContain(
      "Loop memory:\nProject memory:\nPreferences:\n- [mem-2] [Workflow] Always run tests",
    );
    expect(prompt).toMatch(/- Memory: \d+\/8000 chars across 1 entries/);
    const runMemory = readFileSync(join(dir, ".autoloop/runs/mem-run-1/memory.jsonl"), "utf8");
    expect(runMemory).toContain('"text": "the suite needs NODE_ENV=test"');
    expect(readFileSync(join(dir, ".autoloop/memory.jsonl"), "utf8")).toContain(
      '"text": "builds need 4 GB"',
    );
    const list = await autoloop(["memory", "list"], { cwd: dir });
    expect(list.stdout).toContain("builds need 4 GB");
    expect(list.stdout).not.toContain("NODE_ENV=test"); // run memory, outside the run
  });
});
