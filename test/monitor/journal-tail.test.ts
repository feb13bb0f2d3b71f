// The journal lines an alert carries: the run's last records, none of another run's.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { encodeRecord, type SystemRecord } from "../../src/journal/codec.js";
import { journalTail } from "../../src/monitor/alert-message.js";
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
    expect(journalTail(join(file, "missing"), "r1")).toEqual([]);
  });
});
