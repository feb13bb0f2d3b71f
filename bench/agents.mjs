// bench/agents: each real agent CLI (claude, codex, gemini from npm), logged in against the
// scripted model server, answering at once: what one iteration costs in the CLI itself, and
// what the harness adds around it (reading the CLI's event stream included).
import { spawn } from "node:child_process";
import { mkdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { AUTOLOOP, bundleBench, median, report, tempDir } from "./lib.mjs";

const ITERATIONS = 4;

async function helpers() {
  return import(await bundleBench("agents-entry"));
}

function run(args, cwd, env) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { cwd, env, stdio: ["ignore", "ignore", "pipe"] });
    let stderr = "";
    child.stderr.on("data", (c) => (stderr += c));
    child.on("error", reject);
    child.on("exit", (code) => resolve({ code, stderr }));
  });
}

/** Per iteration: the CLI's own time, and the harness's time around it (iteration.start gaps). */
function perIteration(dir) {
  const lines = readFileSync(join(dir, ".autoloop/journal.jsonl"), "utf8")
    .trimEnd()
    .split("\n")
    .map((l) => JSON.parse(l));
  const starts = lines.filter((r) => r.topic === "iteration.start").map((r) => Date.parse(r.ts));
  const agent = lines
    .filter((r) => r.topic === "iteration.finish")
    .map((r) => Number(r.fields.elapsed_s) * 1000);
  const overhead = [];
  for (let i = 0; i + 1 < starts.length; i++) overhead.push(starts[i + 1] - starts[i] - agent[i]);
  return { agent, overhead };
}

export async function benchAgents() {
  console.log("\n== bench/agents: real CLIs, logged in against the scripted model server ==");
  const { cleanupTempDirs, loggedInEnv, modelServerFor } = await helpers();
  let ok = true;
  for (const cli of ["claude", "codex", "gemini"]) {
    let answer = 0;
    const server = await modelServerFor(cli, () => ({
      kind: "answer",
      text: `Working (${++answer}).`,
    }));
    try {
      const dir = tempDir();
      mkdirSync(join(dir, "project"));
      const cwd = join(dir, "project");
      const env = { ...process.env, ...loggedInEnv(cli, server) };
      for (const key of Object.keys(env)) if (key.startsWith("AUTOLOOP")) delete env[key];
      const r = await run(
        [
          AUTOLOOP,
          "run",
          "autofix",
          "x",
          "--set",
          `backend.command=${cli}`,
          "--max-iterations",
          String(ITERATIONS),
          "--quiet",
        ],
        cwd,
        env,
      );
      if (r.code !== 3) throw new Error(`${cli}: autoloop run exited ${r.code}: ${r.stderr}`);
      const { agent, overhead } = perIteration(cwd);
      const cliMs = median(agent);
      const harnessMs = median(overhead);
      report(`${cli}: one iteration in the CLI (median of ${ITERATIONS})`, cliMs, "ms");
      ok =
        report(
          `${cli}: harness time per iteration beyond the CLI`,
          harnessMs,
          "ms",
          "<= 10% of the CLI's own time",
          harnessMs <= 0.1 * cliMs,
        ) && ok;
    } finally {
      await server.close();
      cleanupTempDirs();
    }
  }
  return ok;
}
