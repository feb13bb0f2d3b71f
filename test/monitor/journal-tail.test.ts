// The journal lines an alert carries: the run's last records, none of another run's.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { encodeRecord, type SystemRecord } from "../../src/journal/codec.js";
import { journalTail } from "../../src/monitor/compose-alert.js";
import { cleanupTempDirs, tempDir } from "../helpers/cli.js";

afterEach(cleanupTempDirs);

const record = (run: string, topic: string, n: number): SystemRecord => ({
  shape: "system",
  run,
  topic,
  ts: new Date(Date.UTC(2026, 3, 7, 12, 0, n)).toISOString(),
  v: 1,
  fields: { note: `step ${n}` },
});

describe("journalTail", () => {
  it("gives the run's last records in order, skipping other runs (even ones naming it)", () => {
    const lines: string[] = [];
    for (let n = 0; n < 12; n++) {
      lines.push(encodeRecord(record("r1", `event.${n}`, n)));
      // Another run whose fields mention r1: not one of r1's records.
      lines.push(encodeRecord({ ...record("r10", "note", n), fields: { about: "r1" } }));
    }
    const file = join(tempDir(), "journal.jsonl");
    writeFileSync(file, `${lines.join("\n")}\n`);
    const tail = journalTail(file, "r1", 3);
    expect(tail).toHaveLength(3);
    expect(tail.map((l) => /event\.(\d+)/.exec(l)?.[1])).toEqual(["9", "10", "11"]);
    expect(journalTail(file, "r2")).toEqual([]);
    expect(journalTail(file, "")).toEqual([]); // an empty id names no run (and ends)
    expect(journalTail(join(file, "missing"), "r1")).toEqual([]);
  });

  it("reads only the last 256 KB: a line cut by the window is skipped, not half-decoded", () => {
    const lines: string[] = [];
    for (let n = 0; n < 4; n++) lines.push(encodeRecord(record("r1", `old.${n}`, n)));
    // ~300 KB of another run's lines, then r1's last records.
    const filler = "x".repeat(1000);
    for (let n = 0; n < 300; n++)
      lines.push(encodeRecord({ ...record("r2", "note", n), fields: { filler } }));
    for (let n = 0; n < 2; n++) lines.push(encodeRecord(record("r1", `new.${n}`, n)));
    const file = join(tempDir(), "journal.jsonl");
    writeFileSync(file, `${lines.join("\n")}\n`);
    expect(journalTail(file, "r1", 5).map((l) => /(old|new)\.\d/.exec(l)?.[0])).toEqual([
      "new.0",
      "new.1",
    ]);
    // The run's line that the window starts in the middle of is not one of its records.
    const cut = lines.slice(0, 4).join("\n").length + 1 + 150;
    const big = `${lines.slice(0, 4).join("\n")}\n${encodeRecord({ ...record("r3", "x", 0), fields: { filler: "y".repeat(300 * 1024 - cut) } })}\n${encodeRecord(record("r3", "end", 1))}\n`;
    writeFileSync(file, big);
    expect(journalTail(file, "r3").map((l) => /end/.test(l))).toEqual([true]);
  });

  it("takes a last line without a newline (an append in progress is skipped)", () => {
    const file = join(tempDir(), "journal.jsonl");
    const whole = encodeRecord(record("r1", "event.1", 1));
    writeFileSync(file, `${whole}\n${encodeRecord(record("r1", "event.2", 2))}`);
    expect(journalTail(file, "r1")).toHaveLength(2);
    writeFileSync(file, `${whole}\n${encodeRecord(record("r1", "event.2", 2)).slice(0, 30)}`);
    expect(journalTail(file, "r1")).toHaveLength(1);
  });
});
