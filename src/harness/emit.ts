// `autoloop emit`: an agent publishes an event. An event whose evidence gate refuses its
// payload is journaled as the gate's `blocked` (or `failed`) event instead; disallowed
// topics are journaled as `event.invalid` (backpressure); the completion event is refused
// with `task.gate` while blocking tasks are open. Each exits 1 and tells the agent what to do.
import { JournalWriter } from "../journal/append.js";
import { type FieldValue, journalTimestamp } from "../journal/codec.js";
import { UserError } from "../util/errors.js";
import { Redactor } from "../util/secrets.js";
import { checkGate, type Gate, gateFor } from "./preset/evidence.js";
import {
  isJoinedTopic,
  isParallelTrigger,
  objectivesHint,
  parseObjectives,
  triggerRefusal,
} from "./preset/parallel.js";
import { eventAllowed } from "./preset/topology.js";
import { isValidRunId } from "./run-id.js";
import { runSecretValues } from "./run-secrets.js";
import { isSystemTopic } from "./run-view.js";
import type { TaskEntry } from "./tasks/entry.js";
import { blockingTasks } from "./tasks/materialize.js";
import { TaskStore } from "./tasks/store.js";

export interface EmitContext {
  runId: string;
  iteration: string;
  journalFile: string;
  tasksFile: string;
  completionEvent: string;
  /** The event an agent asks a human with: always accepted, whatever the routing ("" off). */
  askEvent?: string;
  recentEvent: string;
  allowedEvents: string[];
  allowedRoles: string[];
  /** Values of the run's secrets (its env files' variables), kept out of what is journaled. */
  secrets?: readonly string[];
  /** The preset's evidence gates (`AUTOLOOP_GATES`). */
  gates?: readonly Gate[];
  /** Parallel waves (`AUTOLOOP_PARALLEL_MAX_BRANCHES`); unset: off. */
  parallel?: { maxBranches: number };
}

export type EmitOutcome =
  | { kind: "emitted"; topic: string }
  | { kind: "invalid"; topic: string; allowedEvents: string[]; reason?: string }
  | { kind: "gated"; topic: string; openTasks: TaskEntry[] }
  | { kind: "blocked"; topic: string; journaled: string; message: string };

function csv(text: string | undefined): string[] {
  return (text ?? "")
    .split(",")
    .map((s) => s.trim())
    .filter((s) => s !== "");
}

/** Reads the emit context from the agent environment set by the harness. */
export function emitContextFromEnv(env: NodeJS.ProcessEnv): EmitContext {
  const runId = env.AUTOLOOP_RUN_ID;
  const journalFile = env.AUTOLOOP_JOURNAL_FILE;
  if (!runId || !journalFile) {
    throw new UserError(
      "autoloop emit publishes into a running loop, but AUTOLOOP_RUN_ID / AUTOLOOP_JOURNAL_FILE are not set; " +
        "call it through the event tool the harness hands the agent ($AUTOLOOP_BIN)",
    );
  }
  if (!isValidRunId(runId)) {
    throw new UserError(`AUTOLOOP_RUN_ID ${JSON.stringify(runId)} is not a valid run id`);
  }
  return {
    runId,
    iteration: env.AUTOLOOP_ITERATION ?? "",
    journalFile,
    tasksFile: env.AUTOLOOP_TASKS_FILE ?? "",
    completionEvent: env.AUTOLOOP_COMPLETION_EVENT || "task.complete",
    askEvent: env.AUTOLOOP_ASK_EVENT ?? "human.ask",
    recentEvent: env.AUTOLOOP_RECENT_EVENT || "loop.start",
    allowedEvents: csv(env.AUTOLOOP_ALLOWED_EVENTS),
    allowedRoles: csv(env.AUTOLOOP_ALLOWED_ROLES),
    secrets: runSecretValues(env),
    gates: gatesFromEnv(env.AUTOLOOP_GATES),
    ...parallelFromEnv(env.AUTOLOOP_PARALLEL_MAX_BRANCHES),
  };
}

/** Waves are on when the harness set their branch limit. */
function parallelFromEnv(text: string | undefined): Pick<EmitContext, "parallel"> {
  const maxBranches = Number(text);
  return text !== undefined && Number.isInteger(maxBranches) && maxBranches > 0
    ? { parallel: { maxBranches } }
    : {};
}

/** Why a wave's trigger (or a joined topic) is refused now; undefined: it is not, or not one. */
export function parallelRefusal(
  ctx: EmitContext,
  topic: string,
  payload: string,
): string | undefined {
  if (!isParallelTrigger(topic) && !isJoinedTopic(topic)) return undefined;
  const refused = triggerRefusal(topic, {
    enabled: ctx.parallel !== undefined,
    allowedEvents: ctx.allowedEvents,
    completionEvent: ctx.completionEvent,
    isSystemTopic,
  });
  if (refused !== undefined || ctx.parallel === undefined) return refused;
  const parsed = parseObjectives(payload, ctx.parallel.maxBranches);
  return parsed.kind === "ok" ? undefined : objectivesHint(parsed.reason, ctx.parallel.maxBranches);
}

/** The gates the harness bound into the event tool, as JSON (set only when a preset has any). */
function gatesFromEnv(text: string | undefined): Gate[] {
  if (text === undefined || text === "") return [];
  try {
    const gates: unknown = JSON.parse(text);
    const isGate = (g: Gate) =>
      typeof g?.event === "string" &&
      typeof g.blocked === "string" &&
      Array.isArray(g.requires) &&
      Array.isArray(g.evidence);
    if (Array.isArray(gates) && gates.every(isGate)) return gates;
  } catch {}
  throw new UserError(
    "AUTOLOOP_GATES is not the JSON list of gates the harness sets; call the event tool ($AUTOLOOP_BIN) unchanged",
  );
}

/** Blocking open tasks of a tasks file (soft tasks never block). */
export function openBlockingTasks(tasksFile: string): TaskEntry[] {
  return tasksFile === "" ? [] : blockingTasks(new TaskStore(tasksFile).view());
}

/** What a topic may be made of. */
export const TOPIC = /^[A-Za-z0-9][A-Za-z0-9._:-]*$/;

export function emitEvent(
  ctx: EmitContext,
  topic: string,
  payload: string,
  now = new Date(),
): EmitOutcome {
  if (!TOPIC.test(topic)) {
    throw new UserError(
      `invalid topic ${JSON.stringify(topic)}: use letters, digits and . _ : - (e.g. review.ready)`,
    );
  }
  const writer = new JournalWriter(ctx.journalFile);
  const system = (name: string, fields: Record<string, FieldValue>) =>
    writer.append({
      shape: "system",
      run: ctx.runId,
      iteration: ctx.iteration,
      topic: name,
      ts: journalTimestamp(now),
      v: 1,
      fields,
    });
  try {
    // A gate applies before routing and the completion gate, so no topic slips past it.
    const gate = gateFor(ctx.gates ?? [], topic);
    const verdict = gate === undefined ? undefined : checkGate(gate, topic, payload);
    if (verdict?.kind === "refused") {
      // Overwriting keeps `summary` in its place: the reference's field order.
      const summary = Redactor.of(ctx.secrets ?? []).redact(payload);
      system(verdict.topic, { ...verdict.fields, summary });
      return { kind: "blocked", topic, journaled: verdict.topic, message: verdict.message };
    }
    const asks = ctx.askEvent !== undefined && ctx.askEvent !== "" && topic === ctx.askEvent;
    const wave = isParallelTrigger(topic) || isJoinedTopic(topic);
    const reason = parallelRefusal(ctx, topic, payload);
    const allowed = asks || wave || eventAllowed(ctx.allowedEvents, topic);
    if (!allowed || reason !== undefined || isSystemTopic(topic)) {
      system("event.invalid", {
        recent_event: ctx.recentEvent,
        emitted: topic,
        suggested_roles: ctx.allowedRoles.join(","),
        allowed_events: ctx.allowedEvents.join(","),
      });
      return {
        kind: "invalid",
        topic,
        allowedEvents: ctx.allowedEvents,
        ...(reason && { reason }),
      };
    }
    if (topic === ctx.completionEvent) {
      const open = openBlockingTasks(ctx.tasksFile);
      if (open.length > 0) {
        system("task.gate", { blocked_topic: topic, open_tasks: open.map((t) => t.id).join(",") });
        return { kind: "gated", topic, openTasks: open };
      }
    }
    writer.append({
      shape: "agent",
      run: ctx.runId,
      iteration: ctx.iteration,
      topic,
      ts: journalTimestamp(now),
      v: 1,
      payload: Redactor.of(ctx.secrets ?? []).redact(payload),
      source: "agent",
    });
    return { kind: "emitted", topic };
  } finally {
    writer.close();
  }
}

/** The gate refusal text of docs/formats.md ("The completion gate"). */
export function gateMessage(topic: string, open: readonly TaskEntry[]): string {
  return (
    `Cannot complete: ${open.length} open tasks remain:\n` +
    open.map((t) => `  - [${t.id}] ${t.text}\n`).join("") +
    `Complete or remove these tasks before emitting ${topic}.`
  );
}

export function invalidMessage(topic: string, ctx: EmitContext, reason?: string): string {
  if (reason !== undefined) return `Rejected: ${reason}.`;
  if (isSystemTopic(topic))
    return `Rejected: ${topic} is a harness topic and cannot be emitted by an agent.`;
  return (
    `Rejected: ${topic} is not allowed after ${ctx.recentEvent}.\n` +
    `Allowed next events: ${ctx.allowedEvents.join(", ") || "(any)"}\n` +
    "Re-emit using one of the allowed events."
  );
}
