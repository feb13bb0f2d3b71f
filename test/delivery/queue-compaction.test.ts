// Compacting the delivery queue's file while other processes write it: every writer appends
// and compacts under the file's lock, and a compaction replays the file, not its own memory.
import { spawn } from "node:child_process";
import { once } from "node:events";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { DeliveryQueue } from "../../src/delivery/queue.js";
import { appendDeliveryRecords } from "../../src/delivery/queue-file.js";
import {
  compactedDeliveryRecords,
  type DeliveryRecord,
  replayDeliveries,
} from "../../src/delivery/record.js";
import { cleanupTempDirs, tempDir } from "../helpers/cli.js";
import { parkedJob } from "../helpers/delivery-world.js";
import { transpileClosure } from "../helpers/transpile.js";

afterAll(cleanupTempDirs);

const AT = "2026-11-29T10:00:00.000Z";

/** A pull request job of its own schedule, so none supersedes another. */
const jobOf = (runId: string) => parkedJob(`s-${runId}`, runId);

// Another writer (a `fire`, a second daemon): its queue enqueues `count` runs, one by one.
const CHILD = `
import { DeliveryQueue } from "./src/delivery/queue.js";
const [path, count, template] = process.argv.slice(2);
const queue = DeliveryQueue.open({ path });
for (let i = 0; i < Number(count); i++) {
  const runId = "child-" + i;
  queue.enqueue({ ...JSON.parse(template), schedule: "s-" + runId, runId });
}
await queue.close();
`;

describe("compacting the delivery queue's file", () => {
  it("keeps every line another process appends while this one compacts", async () => {
    const buildDir = tempDir();
    transpileClosure(["src/delivery/queue.ts"], buildDir);
    writeFileSync(join(buildDir, "child.mjs"), CHILD);
    const path = join(tempDir(), "deliveries.jsonl");
    const queue = DeliveryQueue.open({ path });
    const args = [join(buildDir, "child.mjs"), path, "60", JSON.stringify(jobOf("x"))];
    const child = spawn(process.execPath, args, { stdio: "inherit" });
    const exited = once(child, "exit");
    let done = false;
    void exited.then(() => (done = true));
    let own = 0;
    while (!done) {
      queue.enqueue(jobOf(`parent-${own++}`));
      queue.compact();
      await new Promise((r) => setTimeout(r, 2));
    }
    expect((await exited)[0]).toBe(0);
    await queue.close();

    const reopened = DeliveryQueue.open({ path });
    const lost = [
      ...Array.from({ length: 60 }, (_, i) => `child-${i}`),
      ...Array.from({ length: own }, (_, i) => `parent-${i}`),
    ].filter((id) => reopened.result(id)?.kind !== "pending");
    expect(lost).toEqual([]);
    await reopened.close();
  }, 60_000);

  it("keeps a fire's dead line until the monitor marks it paged", () => {
    const records: DeliveryRecord[] = [
      { type: "enqueued", id: "r1", at: AT, job: jobOf("r1") },
      { type: "dead", id: "r1", at: AT, error: "refused", by: "fire", schedule: "s-r1" },
      { type: "enqueued", id: "r2", at: AT, job: jobOf("r2") },
      { type: "dead", id: "r2", at: AT, error: "refused", by: "fire", schedule: "s-r2" },
      { type: "enqueued", id: "r3", at: AT, job: jobOf("r3") },
      { type: "dead", id: "r3", at: AT, error: "refused" },
      { type: "paged", id: "r2", at: AT },
    ];
    const compacted = compactedDeliveryRecords(replayDeliveries(records), AT);
    expect(compacted).toEqual([records[1]]);
    // A compacted file compacts to itself: the line outlives its `enqueued`.
    expect(compactedDeliveryRecords(replayDeliveries(compacted), AT)).toEqual(compacted);
    const paged = replayDeliveries([...compacted, { type: "paged", id: "r1", at: AT }]);
    expect(compactedDeliveryRecords(paged, AT)).toEqual([]);
  });

  it("compacts what another writer appended since it opened the file", () => {
    const path = join(tempDir(), "deliveries.jsonl");
    const daemon = DeliveryQueue.open({ path });
    daemon.enqueue(jobOf("daemon-1"));
    const fire = DeliveryQueue.open({ path, writer: "fire" });
    fire.enqueue(jobOf("fire-1"));
    daemon.compact();
    const text = readFileSync(path, "utf8");
    expect(text).toContain('"id":"daemon-1"');
    expect(text).toContain('"id":"fire-1"');
  });

  it("takes from the file a delivery another writer finished", () => {
    const path = join(tempDir(), "deliveries.jsonl");
    const daemon = DeliveryQueue.open({ path });
    daemon.enqueue(jobOf("r1"));
    const sha = "b".repeat(40);
    const url = "https://github.example/o/a/pull/7";
    appendDeliveryRecords(path, [
      { type: "pushed", id: "r1", at: AT, sha },
      { type: "delivered", id: "r1", at: AT, action: "opened", number: 7, url },
    ]);
    daemon.compact();
    expect(daemon.result("r1")).toEqual({ kind: "delivered", action: "opened", number: 7, url });
    expect(daemon.nextDueAt()).toBeUndefined();
    const branch = `{"type":"branch","id":"s-r1","at":"[^"]+","sha":"${sha}"}`;
    expect(readFileSync(path, "utf8")).toMatch(new RegExp(branch));
  });
});
