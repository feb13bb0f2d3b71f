// The run page's download: the run's own records from a shared journal, in the journal's byte
// style, redacted; nothing for a run the ledger has not seen start.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { encodeRecord, type JournalRecord } from "../../src/journal/codec.js";
import { runJournal } from "../../src/operator/run-detail.js";
import type { LedgerEvent, RunSummary } from "../../src/scheduler/ledger/events.js";
import { Redactor } from "../../src/util/secrets.js";
import { cleanupTempDirs, tempDir } from "../helpers/cli.js";

afterEach(cleanupTempDirs);

const KEY = "sk-download-0123456789abcdef";
const record = (run: string, topic: string, payload: string): JournalRecord => ({
  shape: "agent",
  run,
  iteration: "1",
  topic,
  ts: "2026-11-29T10:00:00.000Z",
  v: 1,
  payload,
  source: "agent",
});

/** A ledger that knows one run, started with its journal at `journalPath` from `offset`. */
const ledgerOf = (journalPath: string, offset: number, started = true) => ({
  replay: () => ({
    summary: { runId: "r1" } as RunSummary,
    events: (started
      ? [{ event: "started", journalPath, journalOffset: offset, outputPath: "", pid: 1, pgid: 1 }]
      : []) as LedgerEvent[],
  }),
});

describe("a run's journal as a download", () => {
  it("holds the run's records only, byte for byte, with the keys it wrote redacted", () => {
    const path = join(tempDir(), "journal.jsonl");
    const before = `${encodeRecord(record("r1", "old.run", "before the start"))}\n`;
    const mine = [record("r1", "note", 'a "quoted" line\nand é'), record("r1-step-1", "x", "step")];
    const leaked = record("r1", "note", `the key is ${KEY}`);
    writeFileSync(
      path,
      before +
        [mine[0]!, record("other", "note", "another run"), mine[1]!, leaked]
          .map((r) => `${encodeRecord(r)}\n`)
          .join(""),
    );
    const got = runJournal(ledgerOf(path, Buffer.byteLength(before)), "r1", Redactor.of([KEY]));
    expect(got).toEqual({
      truncated: false,
      text: [...mine, { ...leaked, payload: "the key is [REDACTED]" }]
        .map((r) => `${encodeRecord(r)}\n`)
        .join(""),
    });
    expect(runJournal(ledgerOf(path, 0, false), "r1")).toBeUndefined();
  });
});
