// No orphan agents: a harness killed with SIGKILL takes its agent (and the agent's children)
// with it, while a harness that ends normally leaves nothing behind to kill.
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { execa } from "execa";
import { afterEach, describe, expect, it } from "vitest";
import { AUTOLOOP, cleanEnv, cleanupTempDirs, tempDir } from "../helpers/cli.js";
import { waitFor } from "../helpers/wait.js";

afterEach(cleanupTempDirs);

/** Alive and not a zombie waiting for a reaper (containers without an init keep those). */
function running(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2)[0] !== "Z";
  } catch {
    return false;
  }
}

/** A preset whose agent starts a grandchild, writes both pids, and works for a minute. */
function sleepyPreset(): { dir: string; pids: string } {
  const dir = tempDir("autoloop-preset-");
  const pids = join(dir, "pids");
  const agent = join(dir, "agent.mjs");
  writeFileSync(
    agent,
    `import { spawn } from "node:child_process";
import { writeFileSync } from "node:fs";
const child = spawn(process.execPath, ["-e", "setTimeout(() => {}, 60000)"], { stdio: "ignore" });
writeFileSync(${JSON.stringify(pids)}, process.pid + " " + child.pid);
setTimeout(() => {}, 60000);
`,
  );
  writeFileSync(
    join(dir, "autoloops.toml"),
    `[event_loop]\nmax_iterations = 1\n[backend]\ncommand = ${JSON.stringify(process.execPath)}\nargs = [${JSON.stringify(agent)}]\nprompt_mode = "file"\ntimeout_ms = 120000\n`,
  );
  return { dir, pids };
}

describe("the agent of a harness that dies", () => {
  it("is killed with its children when the harness gets SIGKILL", async () => {
    const { dir, pids } = sleepyPreset();
    const work = tempDir();
    const harness = execa(process.execPath, [AUTOLOOP, "run", dir, "x", "--quiet"], {
      cwd: work,
      env: cleanEnv(),
      extendEnv: false,
      reject: false,
    });
    const [agent, grandchild] = await waitFor(() => {
      try {
        const text = readFileSync(pids, "utf8").trim();
        return text.includes(" ") ? text.split(" ").map(Number) : undefined;
      } catch {
        return undefined;
      }
    }, "the agent's pid file");
    expect(running(agent!)).toBe(true);
    harness.kill("SIGKILL");
    await harness;
    await waitFor(
      () => !running(agent!) && !running(grandchild!),
      "the agent and its child to die",
      10_000,
    );
  }, 30_000);

  it("is left alone by a run that ends normally (the watcher exits without a kill)", async () => {
    const work = tempDir();
    const result = await execa(
      process.execPath,
      [AUTOLOOP, "run", "demo", "Write the report", "--quiet"],
      {
        cwd: work,
        env: cleanEnv(),
        extendEnv: false,
        reject: false,
      },
    );
    expect(result.exitCode).toBe(0);
  });
});
