// The deliveries a daemonless `fire` gave up on are paged once each, across compactions of the
// queue file and monitor restarts: the monitor marks them paged in the file itself.
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { DeliveryQueue } from "../../src/delivery/queue.js";
import { appendDeliveryRecords } from "../../src/delivery/queue-file.js";
import type { DeliveryRecord } from "../../src/delivery/record.js";
import { unpagedFiredDead } from "../../src/monitor/fired-deliveries.js";
import { MonitorService } from "../../src/monitor/service.js";
import { cleanupTempDirs, tempDir } from "../helpers/cli.js";
import { silentLogger, writeCronConfig } from "../helpers/daemon.js";
import { parkedJob } from "../helpers/delivery-world.js";
import { webhookReceiver } from "../helpers/webhook-receiver.js";

const closers: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const c of closers.splice(0).reverse()) await c();
});
afterAll(cleanupTempDirs);

/** A run of schedule "check" enqueued, then given up on by a `fire`. */
function firedDead(runId: string): DeliveryRecord[] {
  const at = new Date().toISOString();
  const job = parkedJob("check", runId);
  return [
    { type: "enqueued", id: runId, at, job },
    { type: "dead", id: runId, at, error: `${runId} refused`, by: "fire", schedule: "check" },
  ];
}

describe("the pages of fire's deliveries given up on", () => {
  it("pages each once across compactions and a restart", async () => {
    const { posted, url } = await webhookReceiver(closers);
    const dir = tempDir();
    const channel = `alert = ["hook"]\n[[channel]]\nname = "hook"\ntype = "webhook"\nurl = "${url}/alerts"\n`;
    const config = writeCronConfig(dir, "", channel);
    mkdirSync(join(config.stateDir, "monitor"), { recursive: true });
    const since = new Date(Date.now() - 60_000).toISOString();
    writeFileSync(join(config.stateDir, "monitor", "watching-since"), `${since}\n`);
    const path = join(config.stateDir, "deliveries.jsonl");
    const compact = () => DeliveryQueue.open({ path }).compact();
    const pagedRuns = () => posted.map((p) => p.data.summary.match(/run-\d/)?.[0]);

    // A daemon compacts the file before the monitor has read the fire's line.
    appendDeliveryRecords(path, firedDead("run-1"));
    compact();
    const monitor = new MonitorService({ config, logger: silentLogger });
    await monitor.runOnce();
    expect(pagedRuns()).toEqual(["run-1"]);

    appendDeliveryRecords(path, firedDead("run-2"));
    await monitor.runOnce();
    compact();
    await monitor.runOnce();
    await monitor.stop();
    const restarted = new MonitorService({ config, logger: silentLogger });
    closers.push(() => restarted.stop());
    await restarted.runOnce();
    expect(pagedRuns()).toEqual(["run-1", "run-2"]);
    // Paged, the lines go at the next compaction.
    compact();
    expect(readFileSync(path, "utf8")).toBe("");
  }, 60_000);

  it("reads fire's dead lines not marked paged, ignoring the daemon's own", () => {
    const lines = [
      ...firedDead("run-1"),
      ...firedDead("run-2"),
      { type: "dead", id: "run-3", at: "2026-11-29T10:00:00.000Z", error: "paged by the daemon" },
      { type: "paged", id: "run-1", at: "2026-11-29T10:00:00.000Z" },
    ].map((r) => JSON.stringify(r));
    const text = `${lines.join("\n")}\n{"type":"dead","id":"run-4","by":"fi`;
    expect(unpagedFiredDead(text).map((r) => r.runId)).toEqual(["run-2"]);
  });
});
