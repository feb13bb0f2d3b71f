// Liveness of many pids at once (one /proc listing) agrees with asking for each pid.
import { spawn } from "node:child_process";
import { once } from "node:events";
import { describe, expect, it } from "vitest";
import { isProcessAlive, liveProcesses } from "../../src/util/process.js";

describe("liveProcesses", () => {
  it("says alive for processes listed or started since, dead for those gone", async () => {
    const before = spawn("sleep", ["30"], { stdio: "ignore" });
    await once(before, "spawn");
    const alive = liveProcesses();
    const after = spawn("sleep", ["30"], { stdio: "ignore" }); // not in the listing
    await once(after, "spawn");
    expect(alive(process.pid)).toBe(true);
    expect(alive(before.pid!)).toBe(true);
    expect(alive(after.pid!)).toBe(true);
    before.kill("SIGKILL");
    await once(before, "exit");
    // Listed while alive, it stays so for this listing (one pass); a new one sees it gone.
    expect(alive(before.pid!)).toBe(true);
    expect(liveProcesses()(before.pid!)).toBe(false);
    expect(isProcessAlive(before.pid!)).toBe(false);
    after.kill("SIGKILL");
    await once(after, "exit");
  });
});
