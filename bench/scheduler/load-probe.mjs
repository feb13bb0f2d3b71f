// Spawns `autoloop-cron <args>` (or another node `script`) and measures it from the outside: ms from spawn until a stdout
// line matches `until`, peak RSS (from /proc, every 20 ms) and RSS `settleMs` later.
import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { AUTOLOOP_CRON } from "../lib.mjs";

export function rssMiB(pid) {
  try {
    const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
    return m ? Number(m[1]) / 1024 : 0;
  } catch {
    return 0;
  }
}

export async function probeStart(
  args,
  { until, settleMs = 0, timeoutMs = 120_000, onLine, script = AUTOLOOP_CRON } = {},
) {
  const t0 = performance.now();
  const child = spawn(process.execPath, [script, ...args], {
    stdio: ["ignore", "pipe", "pipe"],
  });
  // A bench that fails half-way leaves no daemon behind; one that goes on forgets this one.
  const killChild = () => child.kill("SIGKILL");
  process.on("exit", killChild);
  child.on("exit", () => process.off("exit", killChild));
  let peak = 0;
  const sampler = setInterval(() => {
    peak = Math.max(peak, rssMiB(child.pid));
  }, 20);
  let buf = "";
  let err = "";
  child.stderr.on("data", (c) => {
    err += c;
  });
  const exited = new Promise((r) => child.on("exit", (code) => r(code)));
  const matched = await new Promise((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`no ${until} within ${timeoutMs} ms`)),
      timeoutMs,
    );
    child.stdout.on("data", (c) => {
      // Cut once per chunk: `validate` prints 100,000 lines, and slicing the buffer per line
      // made this reader slow enough to hold the child's exit back.
      buf += c;
      let from = 0;
      let nl = buf.indexOf("\n");
      while (nl !== -1) {
        const line = buf.slice(from, nl);
        from = nl + 1;
        onLine?.(line, performance.now() - t0);
        if (until.test(line)) {
          clearTimeout(timer);
          resolve(performance.now() - t0);
        }
        nl = buf.indexOf("\n", from);
      }
      buf = buf.slice(from);
    });
    void exited.then((code) => {
      clearTimeout(timer);
      if (until.test("exit")) resolve(performance.now() - t0);
      else reject(new Error(`exited ${code} before ${until}: ${err.slice(0, 500)}`));
    });
  });
  peak = Math.max(peak, rssMiB(child.pid));
  if (settleMs > 0) await new Promise((r) => setTimeout(r, settleMs));
  const steady = rssMiB(child.pid);
  clearInterval(sampler);
  return {
    ms: matched,
    peakMiB: peak,
    steadyMiB: steady,
    child,
    stop: async () => {
      child.kill("SIGTERM");
      await exited;
    },
  };
}
