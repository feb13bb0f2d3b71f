// `autoloop-cron fire <schedule> [--foreground] [--slot TIME]`: a run now, through the daemon
// when one is running (so overlap, concurrency and the ledger stay consistent), else
// in-process; or one scheduled slot (`--slot`, a Kubernetes Job's), claimed once on the state dir.
import { stopRun } from "../operator/run-actions.js";
import { fireThroughDaemon } from "../operator/schedule-actions.js";
import { runningDaemon } from "../scheduler/daemon/control.js";
import { JOB_NAME_ENV, slotOfJob } from "../scheduler/export/kubernetes-job-slot.js";
import { UserError } from "../util/errors.js";
import { parseInstant } from "../util/instant.js";
import { flag, type Parsed, str } from "./common.js";
import { configOf, parseCron } from "./cron-common.js";
import { exitCodeOf, type FireSlot, fireInProcess } from "./cron-fire-local.js";
import { streamOutput } from "./cron-runs.js";

const HELP = `Usage: autoloop-cron fire <schedule> [--foreground] [--slot TIME] [--config FILE]

Launches a run of the schedule now (trigger "manual"), under the schedule's policies
(enabled, pause, \`after\`, overlap; without a daemon a slot cannot wait, so "queue"
skips it).
With a daemon running, the daemon launches it and this prints the run id.
--foreground waits for the run, streams its output and exits with its outcome (Ctrl-C
stops the run, through the daemon when one runs it):
0 completed, 1 failed or timed out, 3 stopped (max_iterations, stalled, ...),
130 killed or interrupted. Without a daemon, fire always runs in the foreground
(this is what the Kubernetes CronJobs and systemd timers from \`export\` run), and
delivers a schedule's pull request (\`deliver\`) itself, through the daemon's queue
file: a delivery the forge puts off is left to the schedule's next fire or a daemon's start.

--slot TIME runs the schedule's slot of TIME (ISO 8601, e.g. 2026-11-29T06:00:00Z; trigger
"cron") in this process: its jitter, its retries (\`retry\`) and a claim on the state dir
that lets no other process (another fire, a daemon) run the same slot; a slot already
claimed starts nothing and exits 0, saying by which run.
In a pod of a CronJob from \`export kubernetes\`, the slot is the Job's scheduled time,
read from the Job's name (<cronjob>-<minutes since the epoch>), which the downward API puts
in $${JOB_NAME_ENV}. A Job made by hand (kubectl create job --from=cronjob/...) has
another name: it runs as a manual fire.
`;

/** How long a foreground fire's Ctrl-C keeps asking the daemon to stop a run not started yet. */
const STOP_RETRY_MS = 15_000;

/** The slot `--slot` or the pod's Kubernetes Job names; a manual run now without either. */
function slotOf(p: Parsed, name: string, env: NodeJS.ProcessEnv): FireSlot {
  const slotText = str(p, "slot");
  const job = env[JOB_NAME_ENV];
  if (slotText !== undefined) {
    const ms = parseInstant(slotText);
    if (ms === undefined)
      throw new UserError(
        `autoloop-cron fire: --slot: found ${JSON.stringify(slotText)}; expected an ISO 8601 time such as 2026-11-29T06:00:00Z`,
      );
    return { kind: "scheduled", slot: new Date(ms) };
  }
  if (job === undefined) return { kind: "now" };
  if (job.trim() === "")
    throw new UserError(
      `autoloop-cron fire: ${JOB_NAME_ENV} is empty: the pod has no Job name (the downward API reads the pod label batch.kubernetes.io/job-name, set since Kubernetes 1.27); export the manifests again with \`autoloop-cron export kubernetes\``,
    );
  const slot = slotOfJob(name, job);
  if (slot.kind === "scheduled") return slot;
  process.stderr.write(`autoloop-cron: ${slot.why}: a manual run, now\n`);
  return { kind: "now" };
}

export async function fireCommand(argv: string[]): Promise<number> {
  const p = parseCron(argv, {
    name: "fire",
    help: HELP,
    options: {
      foreground: { type: "boolean" },
      slot: { type: "string" },
    },
  });
  if (p === undefined) return 0;
  const [name] = p.positionals;
  if (name === undefined) throw new UserError(`autoloop-cron fire: missing <schedule>\n\n${HELP}`);
  const when = slotOf(p, name, process.env);
  const config = configOf(p);
  // A scheduled slot is kept once by its claim on the state dir, not by a daemon's memory.
  if (when.kind === "scheduled" || !runningDaemon(config.stateDir))
    return fireInProcess(config, name, when);
  const fired = await fireThroughDaemon(config.stateDir, name);
  if (!flag(p, "foreground") || fired.runId === undefined) {
    process.stdout.write(`${fired.runId ?? fired.message}\n`);
    return 0;
  }
  // The run is the daemon's, yet a foreground fire is watched as one's own: Ctrl-C stops it
  // (through the daemon, which records why), and the command ends with the run's outcome.
  const runId = fired.runId;
  const stop = async (sig: NodeJS.Signals) => {
    process.stderr.write(`autoloop-cron: ${sig}: stopping ${runId} through the daemon\n`);
    // A run fired a moment ago may not have started yet: ask again until the daemon has it.
    const deadline = Date.now() + STOP_RETRY_MS;
    for (;;) {
      try {
        await stopRun(config.stateDir, runId, `${sig} to autoloop-cron fire --foreground`);
        return;
      } catch (err) {
        if (Date.now() > deadline) {
          process.stderr.write(
            `autoloop-cron: could not stop ${runId}: ${(err as Error).message}\n`,
          );
          return;
        }
        await new Promise((r) => setTimeout(r, 250));
      }
    }
  };
  process.once("SIGINT", (sig) => void stop(sig));
  process.once("SIGTERM", (sig) => void stop(sig));
  process.stdout.write(`${runId}\n`); // once Ctrl-C would stop it
  return exitCodeOf(await streamOutput(config, runId, true));
}
