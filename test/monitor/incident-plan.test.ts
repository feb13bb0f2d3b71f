// A page that opens a new incident names it before the file is written (the page goes out
// first): the file then gets exactly that name and id, or the next number if it was taken.
import { mkdirSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { IncidentStore } from "../../src/incidents/store.js";
import { AlertState, alertsPath, type Notification } from "../../src/monitor/alert-state.js";
import type { Condition } from "../../src/monitor/detect/conditions.js";
import { planOpen, syncIncident } from "../../src/monitor/incident-sync.js";
import { cleanupTempDirs, tempDir } from "../helpers/cli.js";

afterEach(cleanupTempDirs);

const failed: Condition = {
  kind: "run_failed",
  fingerprint: "run_failed:schedule/nightly",
  severity: "critical",
  summary: "schedule nightly: 3 runs failed",
  occurredAt: "2026-11-25T10:00:00.000Z",
  run: "nightly-20261125T1000-abcd",
  schedule: "nightly",
  reason: "exit code 7",
  outcome: "failed",
};

function firing(dir: string): Notification {
  const state = new AlertState(alertsPath(dir), {}, { log: () => {} });
  const [n] = state.reconcile([failed], new Date("2026-11-25T10:00:00.000Z"));
  expect(n?.kind).toBe("firing");
  return n!;
}

describe("planOpen", () => {
  it("names the incident now and writes it later under that very slug and id", () => {
    const dir = tempDir();
    const store = new IncidentStore(join(dir, "incidents"));
    const plan = planOpen(store, firing(dir))!;
    expect(plan.ref.slug).toMatch(/nightly/);
    expect(store.has(plan.ref.slug)).toBe(false);
    expect(plan.write()).toEqual(plan.ref);
    const written = store.find(plan.ref.slug);
    expect(written).toMatchObject({
      id: plan.ref.id,
      fingerprint: failed.fingerprint,
      status: "open",
    });
    // Open now: the same alert again is a note on it, not a new incident.
    expect(planOpen(store, firing(dir))).toBeUndefined();
    expect(syncIncident(store, firing(dir))?.slug).toBe(plan.ref.slug);
  });

  it("takes the next number when the name was taken before the file was written", () => {
    const dir = tempDir();
    const store = new IncidentStore(join(dir, "incidents"));
    const plan = planOpen(store, firing(dir))!;
    mkdirSync(join(dir, "incidents"));
    writeFileSync(
      join(dir, "incidents", `${plan.ref.slug}.md`),
      "---\nname: someone else's\n---\n",
    );
    const written = plan.write();
    expect(written.slug).not.toBe(plan.ref.slug);
    expect(written.id).toBe(plan.ref.id);
    expect(readdirSync(join(dir, "incidents")).filter((f) => f.endsWith(".md"))).toHaveLength(2);
  });
});
