import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { journalHasRun } from "../../src/harness/loop/launch-metadata.js";
import { cleanupTempDirs, tempDir } from "../helpers/cli.js";

afterEach(cleanupTempDirs);

const record = (run: string, extra = "") =>
  `{"run": ${JSON.stringify(run)}, "iteration": "1", "topic": "iteration.finish", "ts": "2026-01-01T00:00:00.000Z", "v": 1, "fields": {${extra}}}\n`;

describe("journalHasRun", () => {
  it("finds a run's records anywhere, even split across two 4 MiB reads", () => {
    const file = join(tempDir(), "journal.jsonl");
    const filler = record("other", `"output": "${"x".repeat(200)}"`);
    const target = record("wanted");
    // Put the target so that its run id straddles the 4 MiB read boundary.
    const before = (4 << 20) - '{"run": "wan'.length;
    const count = Math.floor(before / filler.length);
    const pad = " ".repeat(before - count * filler.length);
    writeFileSync(file, filler.repeat(count) + pad + target + filler.repeat(10));
    expect(journalHasRun(file, "wanted")).toBe(true);
    expect(journalHasRun(file, "absent")).toBe(false);
  });

  it("takes only the run key: an id in another field, or a longer id, is not a hit", () => {
    const file = join(tempDir(), "journal.jsonl");
    writeFileSync(
      file,
      record("wanted-2") +
        record("other", `"parent_run_id": "wanted"`) +
        `{"run":"compact","topic":"loop.start"}\n`,
    );
    expect(journalHasRun(file, "wanted")).toBe(false);
    expect(journalHasRun(file, "wanted-2")).toBe(true);
    expect(journalHasRun(file, "compact")).toBe(true);
    expect(journalHasRun(join(tempDir(), "missing.jsonl"), "wanted")).toBe(false);
  });
});
