// Where the ledger's spend comes from: the harness's `end.json` (read with the journal's
// bounds, only from a harness that exited), never lowered by the journal, else the journal.
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { writeEndRecord } from "../../src/harness/control/end-record.js";
import { privateRunPaths } from "../../src/harness/control/private-run.js";
import type { JournalRecord } from "../../src/journal/codec.js";
import { RunEndScan } from "../../src/scheduler/launch/outcome-journal.js";
import { bookedSpend } from "../../src/scheduler/launch/outcome-spend.js";
import { cleanupTempDirs, tempDir } from "../helpers/cli.js";

afterEach(cleanupTempDirs);

const stopRecord = (cost: string) =>
  ({
    shape: "system",
    run: "r1",
    topic: "loop.stop",
    ts: "2026-01-01T00:00:00.000Z",
    v: 1,
    fields: { reason: "max_iterations", cost_usd: cost, total_tokens: "100" },
  }) as unknown as JournalRecord;

function setup() {
  const env = { AUTOLOOP_OPERATOR_DIR: tempDir() };
  const journal = join(tempDir(), ".autoloop", "journal.jsonl");
  const paths = privateRunPaths("r1", journal, env);
  const end = { runId: "r1", reason: "max_iterations", complete: false, iterations: 1 };
  const write = (costUsd: number) =>
    writeEndRecord(paths, end, { costUsd, totalTokens: 100, unpricedIterations: 0 }, () => {});
  const scan = (cost: string) => new RunEndScan("r1").add([stopRecord(cost)]);
  const book = (s: RunEndScan | undefined, recorded: number | undefined = 3) =>
    bookedSpend("preset", "r1", journal, s, env, recorded);
  return { paths, write, scan, book, journal, env };
}

describe("the spend a run's ledger books", () => {
  it("is the harness's, which the run's journal can raise but never lower", () => {
    const { write, scan, book } = setup();
    write(5);
    expect(book(scan("0.010000"))).toMatchObject({ spend: { costUsd: 5 }, spendBasis: "harness" });
    // end.json planted low where the harness could not replace it: the journal's $5 holds.
    write(0.01);
    expect(book(scan("5.000000"))).toMatchObject({ spend: { costUsd: 5 }, spendBasis: "harness" });
  });

  it("is the journal's when the harness was killed by a signal or left no believable record", () => {
    const { paths, write, scan, book, journal, env } = setup();
    expect(book(scan("2.000000"))).toMatchObject({ spend: { costUsd: 2 }, spendBasis: "journal" });
    write(0.01);
    expect(book(scan("2.000000"), 137)).toMatchObject({ spendBasis: "journal" });
    // No exit status recorded: the wrapper itself was killed, the harness with it.
    expect(bookedSpend("preset", "r1", journal, scan("2.000000"), env, undefined)).toMatchObject({
      spendBasis: "journal",
    });
    write(1e308);
    expect(book(scan("2.000000"))).toMatchObject({ spendBasis: "journal" });
    writeFileSync(paths.end, "{not json");
    expect(book(scan("2.000000"))).toMatchObject({ spendBasis: "journal" });
  });

  it("is unknown when the harness knew no figure, whatever the journal says", () => {
    const { paths, scan, book } = setup();
    mkdirSync(paths.dir, { recursive: true });
    writeEndRecord(
      paths,
      { runId: "r1", reason: "auth_failed", complete: false, iterations: 0 },
      undefined,
      () => {},
    );
    expect(book(scan("0.010000"))).toEqual({ spendBasis: "harness" });
    expect(bookedSpend("command", "r1", "/x/.autoloop/journal.jsonl", undefined, {}, 0)).toEqual(
      {},
    );
  });
});
