// A `block` pre_emit hook guards the events an agent emits by their payload. An agent pads
// its payload past what the hook is handed (AUTOLOOP_EVENT_PAYLOAD is left out of a hook's
// environment past 64 KiB), so the guard sees nothing to refuse. An event no guard could read
// is refused: a real harness, its agent and its hook.
import { afterEach, describe, expect, it } from "vitest";
import { autoloop, cleanupTempDirs, tempDir } from "../helpers/cli.js";
import { field, journalOf } from "../helpers/journal.js";
import { scriptPreset } from "../helpers/script-preset.js";

afterEach(cleanupTempDirs);

// The agent completes with a payload the guard forbids, padded past 64 KiB.
const AGENT = `exec "$AUTOLOOP_BIN" emit task.complete "deploy to production $(head -c 70000 /dev/zero | tr '\\0' x)"
`;
// The guard: no completion that deploys.
const GUARD = `case "$AUTOLOOP_EVENT_PAYLOAD" in *production*) echo "no deploys" >&2; exit 1;; esac`;

describe("a payload too large for the pre_emit guard", () => {
  it("is refused: the guard could not read it", async () => {
    const dir = tempDir("autoloop-emit-guard-");
    const guard = `[[hook]]\nphase = "pre_emit"\non_error = "block"\ncommand = '${GUARD}'`;
    const preset = scriptPreset(dir, { name: "p", script: AGENT, eventLoop: guard });
    const run = await autoloop(["run", preset, "go"], { cwd: dir });
    const records = journalOf(dir);
    expect(records.find((r) => r.topic === "loop.complete")).toBeUndefined();
    const refused = records.find((r) => r.topic === "event.invalid");
    expect(field(refused!, "reason")).toContain("64 KiB");
    expect(run.exitCode).not.toBe(0);
  }, 30_000);
});
