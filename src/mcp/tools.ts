// The MCP server's tools: what a chat agent (Claude Code or any MCP client) may ask of
// autoloop-cron. Each reads the same files as the CLI, and each that changes something goes
// through the CLI's own code path (src/operator/).
import { join } from "node:path";
import * as z from "zod";
import { readStatus } from "../monitor/status.js";
import { acknowledgeIncident } from "../operator/incident-actions.js";
import { scheduleOverview } from "../operator/overview.js";
import { checkRunId, openLedgerAt, stopRun } from "../operator/run-actions.js";
import { answerRun, guideRun, waitingQuestions } from "../operator/run-control.js";
import { runStory, runStoryText } from "../operator/run-story.js";
import { fireThroughDaemon, pauseSchedule } from "../operator/schedule-actions.js";
import { spendRows } from "../scheduler/budget/spend-rows.js";
import type { CronConfig } from "../scheduler/config/config.js";
import { runningDaemon } from "../scheduler/daemon/control.js";
import { SUMMARY_STATUSES } from "../scheduler/ledger/events.js";
import { killSwitchOn, readPauseState } from "../scheduler/schedules/pause-state.js";
import { validateAll } from "../scheduler/schedules/validate.js";
import { nextFireTime } from "../scheduler/timing/planner.js";
import { parseDuration } from "../util/duration.js";
import { UserError } from "../util/errors.js";
import { fileTail } from "../util/read-tail.js";

export interface ToolDefinition {
  name: string;
  title: string;
  description: string;
  inputSchema: z.ZodRawShape;
  readOnly: boolean;
  destructive?: boolean;
  /** Returns text for the model: Markdown, or JSON for data. */
  run(args: Record<string, unknown>, config: CronConfig): Promise<string> | string;
}

const json = (value: unknown) => JSON.stringify(value, null, 2);

/** "24h" or "7d" back from now, or an ISO date/instant, as epoch ms. */
export function sinceMs(text: string, now = Date.now()): number {
  const ago = parseDuration(text);
  if (ago !== undefined) return now - ago;
  const at = Date.parse(text);
  if (Number.isNaN(at))
    throw new UserError(
      `since: found ${JSON.stringify(text)}; expected a duration back from now ("24h", "7d") or an ISO date ("2026-11-24" or "2026-11-24T08:00:00Z")`,
    );
  return at;
}

/** Pauses or resumes a schedule in force, as `autoloop-cron pause|resume <name>` does. */
function pauseByName(config: CronConfig, name: string, paused: boolean): string {
  const names = new Set(validateAll(config).schedules.map((s) => s.name));
  return pauseSchedule(config.stateDir, name, paused, (n) => names.has(n));
}

const runId = z.string().min(1).max(200).describe("A run id, e.g. nightly-20261124T0200-a1b2");

export const TOOLS: ToolDefinition[] = [
  {
    name: "list_schedules",
    title: "List schedules",
    description:
      "The schedules in force: cron, time zone, next fire, state (active, paused, disabled, failing since…) and the outcomes of their last runs, failing ones first. Also the schedule files that do not validate.",
    inputSchema: {
      filter: z.string().max(200).optional().describe("Only schedules whose name contains this"),
      limit: z.number().int().min(1).max(1000).default(100).describe("At most this many"),
    },
    readOnly: true,
    run: (args, config) => {
      const report = validateAll(config);
      const page = scheduleOverview(
        {
          schedules: report.schedules,
          ledger: openLedgerAt(config.stateDir),
          pause: readPauseState(config.stateDir),
          killSwitch: killSwitchOn(process.env),
          nextFire: (s) => nextFireTime(s, new Date()),
          recent: 5,
        },
        { filter: args.filter as string | undefined, limit: args.limit as number },
      );
      return json({ ...page, invalid: report.problems });
    },
  },
  {
    name: "spend",
    title: "Spend per schedule",
    description:
      "What each schedule's runs spent today and this month (days and months of its time zone) in US dollars and tokens, against its budget (per_run, per_day, per_month): whether the budget is spent (its slots are skipped until the period turns) and whether it can hold when some runs' cost is unknown. Schedules with a budget or with runs this month.",
    inputSchema: {
      schedule: z.string().max(200).optional().describe("Only this schedule"),
    },
    readOnly: true,
    run: (args, config) => {
      const schedules = new Map(validateAll(config).schedules.map((s) => [s.name, s]));
      const rows = spendRows(schedules, openLedgerAt(config.stateDir), Date.now());
      const name = args.schedule as string | undefined;
      if (name !== undefined && !schedules.has(name))
        throw new UserError(
          `no schedule ${JSON.stringify(name)} in force; list_schedules shows the schedules`,
        );
      return json(name === undefined ? rows : rows.filter((r) => r.schedule === name));
    },
  },
  {
    name: "list_runs",
    title: "List runs",
    description:
      "Recent runs from the run ledger, newest first: status, trigger, slot, start and end, stop reason. Filter by schedule, status and how recent.",
    inputSchema: {
      schedule: z.string().max(200).optional(),
      status: z.enum(SUMMARY_STATUSES).optional(),
      since: z
        .string()
        .max(40)
        .optional()
        .describe('Runs created after this: a duration back from now ("24h", "7d") or an ISO date'),
      limit: z.number().int().min(1).max(500).default(20),
    },
    readOnly: true,
    run: (args, config) => {
      const since = args.since === undefined ? undefined : sinceMs(args.since as string);
      const ledger = openLedgerAt(config.stateDir);
      const out = [];
      for (const id of ledger.runIdsNewestFirst(args.schedule as string | undefined)) {
        if (out.length >= (args.limit as number)) break;
        const r = ledger.replay(id)?.summary;
        if (r === undefined) continue;
        if (since !== undefined && r.scheduledAt === undefined && Date.parse(r.slot) < since)
          continue; // a skipped slot, perhaps caught up late: it says nothing of the runs after
        // Newest first by creation: once a run created before `since` is seen, none follows.
        if (since !== undefined && Date.parse(r.scheduledAt ?? r.slot) < since) break;
        if (args.status === undefined || r.status === args.status) out.push(r);
      }
      return json(out);
    },
  },
  {
    name: "replay_run",
    title: "Replay a run",
    description:
      "A past run's story from its journal: each iteration's role, events, refused completions (task.gate), exits and output, and how the run ended. A chain run is told step by step.",
    inputSchema: { run_id: runId },
    readOnly: true,
    run: (args, config) => {
      const id = args.run_id as string;
      const story = runStory(openLedgerAt(config.stateDir), id);
      if (story === undefined)
        throw new UserError(`no run ${id} in the ledger; list_runs lists recent runs`);
      return runStoryText(story);
    },
  },
  {
    name: "run_output",
    title: "A run's output",
    description: "The end of what a run wrote to stdout and stderr (its output log).",
    inputSchema: {
      run_id: runId,
      max_bytes: z.number().int().min(256).max(1_048_576).default(16_384),
    },
    readOnly: true,
    run: (args, config) => {
      const id = checkRunId(args.run_id as string, "run_output { run_id }");
      const file = join(config.stateDir, "output", `${id}.log`);
      const tail = fileTail(file, args.max_bytes as number);
      if (tail === undefined)
        throw new UserError(`no output for run ${id}; list_runs lists recent runs`);
      return tail.omittedBytes > 0
        ? `(${tail.omittedBytes} earlier bytes not shown)\n${tail.text}`
        : tail.text;
    },
  },
  {
    name: "status",
    title: "What needs a human",
    description:
      "The exceptions only: firing alerts (stuck at the completion gate, failed, timed out, stalled, crashed), open incidents, alerts waiting or undeliverable, invalid schedule files; and whether a daemon is running.",
    inputSchema: {},
    readOnly: true,
    run: (_args, config) => {
      const daemon = runningDaemon(config.stateDir);
      return json({
        daemon: daemon ? { pid: daemon.pid, startedAt: daemon.startedAt, http: daemon.http } : null,
        ...readStatus(config),
      });
    },
  },
  {
    name: "fire_schedule",
    title: "Fire a schedule now",
    description:
      "Launches a run of the schedule now (trigger manual) through the running daemon, under the schedule's policies (pause, overlap, after). Returns the run id.",
    inputSchema: { schedule: z.string().min(1).max(200) },
    readOnly: false,
    run: async (args, config) =>
      json(await fireThroughDaemon(config.stateDir, args.schedule as string)),
  },
  {
    name: "pause_schedule",
    title: "Pause a schedule",
    description:
      "Pauses a schedule: its slots are skipped (recorded as paused) until it is resumed. The daemon reads it at once.",
    inputSchema: { schedule: z.string().min(1).max(200) },
    readOnly: false,
    run: (args, config) => pauseByName(config, args.schedule as string, true),
  },
  {
    name: "resume_schedule",
    title: "Resume a schedule",
    description:
      "Resumes a paused schedule, including one the scheduler paused after failed runs in a row (pause_after_failures): its next slot runs.",
    inputSchema: { schedule: z.string().min(1).max(200) },
    readOnly: false,
    run: (args, config) => pauseByName(config, args.schedule as string, false),
  },
  {
    name: "stop_run",
    title: "Stop a run",
    description:
      "Stops a running run: SIGTERM to its process group, SIGKILL after a grace period; recorded as killed with the reason.",
    inputSchema: {
      run_id: runId,
      reason: z.string().max(500).default("stopped from a chat (MCP)"),
    },
    readOnly: false,
    destructive: true,
    run: async (args, config) => {
      const id = checkRunId(args.run_id as string, "stop_run { run_id, reason }");
      return stopRun(config.stateDir, id, args.reason as string);
    },
  },
  {
    name: "list_questions",
    title: "List questions runs wait on",
    description:
      "Runs that wait for a human's answer (an agent asked with human.ask): run id, schedule, question id, the question, when it was asked and until when the run waits. Answer one with answer_question.",
    inputSchema: {},
    readOnly: true,
    run: (_args, config) => json(waitingQuestions(config)),
  },
  {
    name: "answer_question",
    title: "Answer a run's question",
    description:
      "Answers the question a run waits on; the run reads it within a second, journals who answered (ask.answered), and goes on with the answer in its next prompt. Refused when the run waits on no question.",
    inputSchema: {
      run_id: runId,
      answer: z.string().min(1).max(20_000).describe("The answer, as the agent should read it"),
      question_id: z.string().max(300).optional().describe("The question's id, to be sure"),
    },
    readOnly: false,
    run: (args, config) =>
      answerRun(
        config,
        args.run_id as string,
        args.answer as string,
        "mcp",
        args.question_id as string | undefined,
      ),
  },
  {
    name: "guide_run",
    title: "Guide a live run",
    description:
      "Guidance for a live run's next iteration (journaled as operator.guidance). By default the agent's current turn is stopped so the next one starts with it.",
    inputSchema: {
      run_id: runId,
      guidance: z.string().min(1).max(20_000),
      interrupt: z.boolean().default(true).describe("Stop the agent's current turn first"),
    },
    readOnly: false,
    run: (args, config) =>
      guideRun(config, args.run_id as string, args.guidance as string, "mcp", {
        interrupt: args.interrupt as boolean,
      }),
  },
  {
    name: "ack_incident",
    title: "Acknowledge an incident",
    description:
      "You are on it: the incident's status becomes acknowledged, the note goes to its changelog, and the alert's reminders stop.",
    inputSchema: {
      incident: z.string().min(1).max(200).describe("The incident's slug, or a unique part of it"),
      note: z.string().max(2000).default(""),
    },
    readOnly: false,
    run: (args, config) =>
      acknowledgeIncident(config.stateDir, args.incident as string, args.note as string).message,
  },
];
