// `autoloop loops watch <run-id>`: follows one run through the registry, a line per change,
// an advice line when it goes quiet, and its detail when it ends (or its process is gone).
import { healthOf, policyForPreset } from "../harness/overview/health.js";
import { runDetail, runLine, runListHeader } from "../harness/overview/render.js";
import { findRun, isLive, processCheckHere, readRuns, text } from "../harness/overview/runs.js";
import type { RegistryEntry } from "../journal/registry-view.js";
import { DURATION_HINT, parseDuration } from "../util/duration.js";
import { UserError } from "../util/errors.js";

const snapshot = (r: RegistryEntry) =>
  [r.iteration, r.latest_event, r.status, r.updated_at].map(text).join("|");

function intervalOf(given: string | undefined): number {
  if (given === undefined) return 2000;
  const ms = parseDuration(given);
  if (ms === undefined || ms < 10)
    throw new UserError(
      `autoloop loops watch: --interval ${JSON.stringify(given)} is not ${DURATION_HINT} (10ms or more)`,
      1,
    );
  return ms;
}

/** The advice printed when a run enters the watching or stuck band, as the public one words it. */
function advisory(r: RegistryEntry, now: number): string | undefined {
  const band = healthOf(r, now, () => true);
  if (band !== "watching" && band !== "stuck") return undefined;
  const mins = Math.round((now - Date.parse(text(r.updated_at))) / 60_000);
  const what = band === "stuck" ? "likely stuck, investigate now" : "investigate soon";
  return `[watch] ${policyForPreset(text(r.preset)).label}: no progress for ${mins}m — ${what}`;
}

/** Why the watch ends now, or undefined while the run goes on. */
function ending(r: RegistryEntry | undefined): string | undefined {
  if (r === undefined) return "[watch] The run is no longer in the registry.";
  if (!isLive(r)) return `[watch] Run ${r.status}.`;
  if (!processCheckHere()(r))
    return `[watch] Run marked ${r.status}, but its process ${r.pid} is gone.`;
  return undefined;
}

export async function watchRun(workDir: string, runId: string, interval?: string): Promise<number> {
  const every = intervalOf(interval);
  const find = () => {
    const found = findRun(readRuns(workDir), runId);
    return found.kind === "found" ? found.run : undefined;
  };
  let run = find();
  const early = ending(run);
  if (early !== undefined) {
    process.stdout.write(
      `${early.replace("Run ", "Run already ")}\n${run ? `${runDetail(run)}\n` : ""}`,
    );
    return 0;
  }
  process.stdout.write(
    `[watch] Watching ${runId} (poll every ${every / 1000}s)\n${runListHeader()}\n${runLine(run!)}\n`,
  );
  let last = snapshot(run!);
  let band = healthOf(run!, Date.now(), () => true);
  let interrupted = false;
  const onSigint = () => {
    interrupted = true;
  };
  process.once("SIGINT", onSigint);
  try {
    for (;;) {
      await new Promise((r) => setTimeout(r, every));
      if (interrupted) {
        process.stdout.write("\n[watch] Interrupted.\n");
        return 0;
      }
      run = find();
      if (run !== undefined && snapshot(run) !== last) {
        last = snapshot(run);
        process.stdout.write(`${runLine(run)}\n`);
      }
      const now = Date.now();
      const nowBand = run && healthOf(run, now, () => true);
      if (run && nowBand !== band) {
        const advice = advisory(run, now);
        if (advice !== undefined) process.stdout.write(`${advice}\n`);
        band = nowBand;
      }
      const end = ending(run);
      if (end !== undefined) {
        process.stdout.write(`\n${end}\n${run ? `${runDetail(run)}\n` : ""}`);
        return 0;
      }
    }
  } finally {
    process.off("SIGINT", onSigint);
  }
}
