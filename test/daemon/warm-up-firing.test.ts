import { readdirSync } from "node:fs";
import { afterEach, describe, expect, it } from "vitest";
import { defaultConfig } from "../../src/config/config.js";
import { warmUpFiringPass } from "../../src/daemon/warm-up-firing.js";
import { cleanupTempDirs, tempDir } from "../helpers/cli.js";

afterEach(cleanupTempDirs);

const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

describe("warmUpFiringPass", () => {
  it("decides every sample slot of its crowded instants, queueing each, and writes nothing", async () => {
    const dir = tempDir();
    // 300 schedules × 9 minutes decided: the fire queue woke for each instant and the slot
    // runner took every slot. Each one queued: max_concurrent_runs = 0 lets none launch, and
    // a queued slot leaves the ledger alone (the warm-up's ledger throws if reached).
    expect(warmUpFiringPass(defaultConfig(dir))).toBe(2700);
    // The queued slots' log lines go out a few hundred per turn, to a silent logger.
    for (let i = 0; i < 3; i++) await nextTurn();
    expect(readdirSync(dir)).toEqual([]);
  });
});
