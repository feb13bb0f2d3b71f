// runAgent with real processes: the iteration ends when the agent exits even if a child that
// left its process group still holds the pipes, and a missing working directory is named.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { runAgent } from "../../src/harness/agents/backend.js";
import { cleanupTempDirs, tempDir } from "../helpers/cli.js";

afterEach(cleanupTempDirs);

const invocation = (cwd: string, script: string) => ({
  command: "sh",
  args: ["-c", script],
  promptMode: "stdin" as const,
  prompt: "",
  promptPath: "",
  cwd,
  env: process.env,
  timeoutMs: 60_000,
  killGraceMs: 100,
  signal: new AbortController().signal,
});

describe("runAgent", () => {
  it("ends the iteration when the agent exits, though an escaped child keeps its pipes", async () => {
    const dir = tempDir();
    // The grandchild leaves the group (setsid) with stdout open; the agent exits at once.
    const result = await runAgent(
      invocation(dir, `setsid sh -c 'echo $$ > escaped.pid; exec sleep 30' & echo agent done`),
    );
    try {
      expect(result).toMatchObject({ kind: "exited", exitCode: 0 });
      expect(result.output).toContain("agent done");
    } finally {
      process.kill(Number(readFileSync(join(dir, "escaped.pid"), "utf8")), "SIGKILL");
    }
  }, 20_000);

  it("names a missing working directory rather than the command", async () => {
    const result = await runAgent(invocation(join(tempDir(), "gone"), "true"));
    expect(result.kind).toBe("spawn_failed");
    expect(result.kind === "spawn_failed" && result.error).toContain("the working directory");
  });
});
