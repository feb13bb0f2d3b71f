// The status page's buttons: each POST path mapped to the operator action the CLI runs.

import { acknowledgeIncident, resolveIncident } from "../operator/incident-actions.js";
import { stopDaemonRun } from "../operator/run-actions.js";
import { answerRun, guideRun } from "../operator/run-control.js";
import { fireSchedule, pauseSchedule } from "../operator/schedule-actions.js";
import type { CronConfig } from "../scheduler/config/config.js";
import type { SchedulerDaemon } from "../scheduler/daemon/daemon.js";

/** What an action needs of the page's options. */
export interface ActionContext {
  config: CronConfig;
  daemon: SchedulerDaemon;
  env?: NodeJS.ProcessEnv;
}

export type ActionResult =
  | { ok: true; message: string; runId?: string }
  | { ok: false; message: string };

type Action = (target: string, note: string, o: ActionContext) => Promise<ActionResult>;

/** Who answered or guided, as the run's journal and the incident record it. */
const PAGE = "status page";

const ACTIONS: Record<string, Record<string, Action>> = {
  schedules: {
    pause: async (name, _note, o) => ({
      ok: true,
      message: pauseSchedule(
        o.config.stateDir,
        name,
        true,
        (n) => o.daemon.schedules.has(n),
        o.env,
      ),
    }),
    resume: async (name, _note, o) => ({
      ok: true,
      message: pauseSchedule(
        o.config.stateDir,
        name,
        false,
        (n) => o.daemon.schedules.has(n),
        o.env,
      ),
    }),
    fire: async (name, _note, o) => {
      const fired = await fireSchedule(o.daemon.control, name);
      return { ok: true, message: fired.message, ...(fired.runId && { runId: fired.runId }) };
    },
  },
  incidents: {
    ack: async (slug, note, o) => ({
      ok: true,
      message: acknowledgeIncident(o.config.stateDir, slug, note).message,
    }),
    resolve: async (slug, note, o) => ({
      ok: true,
      message: resolveIncident(o.config.stateDir, slug, note).message,
    }),
  },
  runs: {
    stop: async (runId, note, o) => ({
      ok: true,
      runId,
      message: await stopDaemonRun(o.daemon.control, runId, note || "operator stop (status page)"),
    }),
    answer: async (runId, text, o) => ({
      ok: true,
      runId,
      message: answerRun(o.config, runId, text, PAGE),
    }),
    guide: async (runId, text, o) => ({
      ok: true,
      runId,
      message: guideRun(o.config, runId, text, PAGE, { interrupt: true }),
    }),
  },
};

/** Runs the action `path` names (`/schedules/<name>/fire`...); undefined when there is none. */
export async function runAction(
  path: string,
  note: string,
  o: ActionContext,
): Promise<ActionResult | undefined> {
  const m = /^\/(schedules|incidents|runs)\/([^/]+)\/([a-z]+)$/.exec(path);
  const action = m ? ACTIONS[m[1]!]?.[m[3]!] : undefined;
  if (m === null || action === undefined) return undefined;
  let target: string;
  try {
    target = decodeURIComponent(m[2]!);
  } catch {
    return { ok: false, message: `${JSON.stringify(m[2])} is not a valid name` };
  }
  try {
    return await action(target, note.slice(0, 2000), o);
  } catch (err) {
    return { ok: false, message: err instanceof Error ? err.message : String(err) };
  }
}
