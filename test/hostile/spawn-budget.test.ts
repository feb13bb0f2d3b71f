// A spawned chain is one request, however many steps it names: an agent asks for one chain of
// many steps, each of which completes in one costly iteration. The tree shares its root's
// budget, so once that is spent no further step may run, however the steps behave.
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { autoloop, cleanupTempDirs, tempDir } from "../helpers/cli.js";

afterEach(cleanupTempDirs);

const usage = `printf '%s' '{"model": "m", "input_tokens": 10, "output_tokens": 10, "cost_usd": 0.6}' > "$AUTOLOOP_USAGE_FILE"`;

function preset(dir: string, name: string, script: string, extra = ""): void {
  mkdirSync(join(dir, name), { recursive: true });
  writeFileSync(
    join(dir, name, "autoloops.toml"),
    `[event_loop]\nmax_iterations = 3\nstall_iterations = 0\n[backend]\ncommand = "sh"\nargs = ["-c", ${JSON.stringify(`${usage}\n${script}\n"$AUTOLOOP_BIN" emit task.complete done`)}]\nprompt_mode = "file"\n${extra}`,
  );
}

describe("a spawned chain of many steps", () => {
  it("runs no step once the root's budget is spent", async () => {
    const presets = tempDir("autoloop-presets-");
    const work = tempDir("autoloop-spawn-flood-");
    const steps = Array.from({ length: 6 }, () => "follow");
    preset(
      presets,
      "lead",
      `"$AUTOLOOP_BIN" emit chain.spawn '${JSON.stringify({ steps })}'`,
      '[chain_spawn]\npresets = ["follow"]\nmax_depth = 1\nmax_children = 1\n',
    );
    preset(presets, "follow", "echo call >> calls.txt");
    const r = await autoloop(
      ["run", join(presets, "lead"), "go", "--run-id", "root", "--budget-usd", "1"],
      { cwd: work },
    );
    expect(r.stderr).not.toMatch(/Error/);
    // The root's $0.60 leaves $0.40: one step's call spends it, and no other step calls.
    const calls = readFileSync(join(work, "calls.txt"), "utf8").trim().split("\n");
    expect(calls).toHaveLength(1);
    const end = readFileSync(join(work, ".autoloop", "journal.jsonl"), "utf8")
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l))
      .find((x) => x.topic === "chain.complete");
    expect(end?.fields).toMatchObject({ status: "stopped", reason: "budget_spent" });
  }, 60_000);
});
