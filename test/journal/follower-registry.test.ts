import { appendFileSync, renameSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { RegistryView, readRegistry, registryPathFor } from "../../src/journal/registry-view.js";
import { tempDir } from "./follower-helpers.js";

let dir: string;
let cleanup: () => void;
let journal: string;
let registry: string;

beforeEach(() => {
  ({ dir, cleanup } = tempDir());
  journal = join(dir, "journal.jsonl");
  registry = join(dir, "registry.jsonl");
});
afterEach(() => cleanup());

const line = (o: Record<string, unknown>) => `${JSON.stringify(o)}\n`;

describe("run registry beside a journal", () => {
  it("lives in the journal's folder", () => {
    expect(registryPathFor(journal)).toBe(registry);
  });

  it("keeps the last line per run_id and tolerates garbage and a missing file", () => {
    expect(readRegistry(journal).size).toBe(0);
    writeFileSync(
      registry,
      line({ run_id: "r1", status: "running", pid: 4242, preset: "demo" }) +
        "garbage\n" +
        line({ run_id: "r2", status: "running", pid: "77" }) +
        line({ run_id: "r1", status: "completed", pid: 4242, stop_reason: "" }) +
        line({ status: "running" }) +
        '{"run_id": "r3", "status": "runn',
    );
    const runs = readRegistry(journal);
    expect([...runs.keys()]).toEqual(["r1", "r2"]);
    expect(runs.get("r1")).toMatchObject({ status: "completed", pid: 4242, stop_reason: "" });
    expect(runs.get("r1")).not.toHaveProperty("preset"); // a line replaces, not merges
    expect(runs.get("r2")!.pid).toBe(77);
  });

  it("reads only appended lines, completing a torn one, and starts over on replacement", () => {
    const view = new RegistryView(journal);
    expect(view.refresh().size).toBe(0);
    writeFileSync(registry, line({ run_id: "r1", status: "running", pid: 1 }));
    expect(view.refresh().get("r1")!.status).toBe("running");
    const done = line({ run_id: "r1", status: "failed", pid: 1 });
    appendFileSync(registry, done.slice(0, 10));
    expect(view.refresh().get("r1")!.status).toBe("running");
    appendFileSync(registry, done.slice(10) + "oops\n");
    expect(view.refresh().get("r1")!.status).toBe("failed");
    expect(view.skipped).toBe(1);

    const next = join(dir, "registry.next");
    writeFileSync(next, line({ run_id: "r9", status: "running", pid: 9 }));
    renameSync(next, registry);
    expect([...view.refresh().keys()]).toEqual(["r9"]);
    expect(view.skipped).toBe(0);
  });
});
