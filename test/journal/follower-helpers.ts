// Shared fixtures for the follower tests: temp dirs, journal lines in both byte styles, and a
// batch collector that lets a test wait for records instead of sleeping.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { encodeRecord, type JournalRecord } from "../../src/journal/codec.js";
import type { LineBatch } from "../../src/journal/follower.js";

export function tempDir(): { dir: string; cleanup: () => void } {
  const dir = mkdtempSync(join(tmpdir(), "follower-"));
  return { dir, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

/** A system record line in the public autoloop byte style (spaced, `\u0022` escapes). */
export function spacedLine(run: string, topic: string, note = ""): string {
  const record: JournalRecord = {
    shape: "system",
    run,
    iteration: "1",
    topic,
    ts: "2026-04-07T12:00:00.000Z",
    v: 1,
    fields: { note },
  };
  return `${encodeRecord(record)}\n`;
}

/** The same record as compact JSON, as other writers may produce it. */
export function compactLine(run: string, topic: string, note = ""): string {
  const record = { run, iteration: "1", topic, ts: "2026-04-07T12:00:00.000Z", v: 1 };
  return `${JSON.stringify({ ...record, fields: { note } })}\n`;
}

/** Collects batches; `waitForTopics(n)` resolves once `n` records in total have arrived. */
export class Collector {
  readonly batches: { path: string; batch: LineBatch }[] = [];
  private waiters: { count: number; resolve: () => void }[] = [];

  readonly onLines = (path: string, batch: LineBatch): void => {
    this.batches.push({ path, batch });
    const have = this.records().length;
    this.waiters = this.waiters.filter((w) => {
      if (have < w.count) return true;
      w.resolve();
      return false;
    });
  };

  records(): JournalRecord[] {
    return this.batches.flatMap((b) => b.batch.records);
  }

  topics(): string[] {
    return this.records().map((r) => r.topic);
  }

  skipped(): number {
    return this.batches.reduce((sum, b) => sum + b.batch.skipped, 0);
  }

  waitForRecords(count: number): Promise<void> {
    if (this.records().length >= count) return Promise.resolve();
    return new Promise((resolve) => this.waiters.push({ count, resolve }));
  }
}
