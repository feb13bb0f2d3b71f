// Renders one iteration's prompt: objective, standing instructions, role prompts, routing,
// backpressure, tasks, context pressure and a compact scratchpad of recent iterations.

import { existsSync, readFileSync } from "node:fs";
import { materializeMemory } from "../memory/materialize.js";
import { type RenderedMemory, renderMemory } from "../memory/render.js";
import { MemoryStore } from "../memory/store.js";
import type { Preset } from "../preset/preset.js";
import type { RunPaths } from "../run-paths.js";
import type { RunView } from "../run-view.js";
import type { TaskView } from "../tasks/materialize.js";
import { renderTasksBlock, tasksPressureLine } from "../tasks/render.js";
import { evidenceNote, evidenceRules } from "./gate-prompt.js";
import { joinNote, parallelRules } from "./wave-prompt.js";

export interface IterationSummary {
  iteration: number;
  exitCode: string;
  emitted: string[];
  outputTail: string;
}

export interface PromptInput {
  preset: Preset;
  paths: RunPaths;
  runId: string;
  objective: string;
  iteration: number;
  maxIterations: number;
  view: RunView;
  suggestedRoles: string[];
  allowedEvents: string[];
  tasks: TaskView;
  history: readonly IterationSummary[];
  /** Set when the completion promise or required events were refused last iteration. */
  completionNote: string;
  /** How long a question waits for its answer (the prompt says so); unset: 5 minutes. */
  askTimeoutMs?: number;
  /** The rendered `Loop memory:` block (text "" when there is none). */
  memory?: RenderedMemory;
  /** The schedule's recent runs, from the scheduler (see readScheduleHistory). */
  scheduleHistory?: string;
}

const SCRATCHPAD_ITERATIONS = 5;

export function listText(items: readonly string[], empty = "(none)"): string {
  return items.length === 0 ? empty : items.join(", ");
}

/** Replaces `{{TOOL_PATH}}`, `{{STATE_DIR}}`, `{{RUN_ID}}` (and `{{PRESET_DIR}}`) in prompts and backend argv. */
export function substitute(text: string, paths: RunPaths, runId: string, presetDir = ""): string {
  return text
    .replaceAll("{{TOOL_PATH}}", paths.toolPath)
    .replaceAll("{{STATE_DIR}}", paths.stateDir)
    .replaceAll("{{RUN_ID}}", runId)
    .replaceAll("{{PRESET_DIR}}", presetDir);
}

export function backpressureNote(view: RunView): string {
  const bp = view.backpressure;
  if (bp === undefined) return "";
  return (
    `Emitted \`${bp.emitted}\` after \`${bp.recentEvent}\`, which is not allowed now.\n` +
    `Suggested roles: ${bp.suggestedRoles || "(none)"}\n` +
    `Allowed next events: ${bp.allowedEvents || "(any)"}\n` +
    "Re-emit using one of the allowed events above."
  );
}

function gateNote(input: PromptInput): string {
  const gate = input.view.lastGate;
  if (gate === undefined || gate.iteration !== String(input.iteration - 1)) return "";
  const via = gate.via === "completion_promise" ? "completion promise" : `\`${gate.blockedTopic}\``;
  return (
    `Task gate: your completion (${via}) in iteration ${gate.iteration} was refused; open tasks: ${gate.openTasks}.\n` +
    "Complete or remove every open task before completing.\n\n"
  );
}

function contextPressure(input: PromptInput): string {
  const { view } = input;
  const hint = view.invalidCount > 0 ? ` (last rejected: \`${view.lastRejected}\`)` : "";
  return (
    "Context pressure:\n" +
    `- ${tasksPressureLine(input.tasks)}\n` +
    `- Invalid emits this run: ${view.invalidCount}${hint}\n` +
    `- Task gate refusals this run: ${view.gateCount}\n` +
    memoryPressure(input) +
    "\n"
  );
}

function memoryPressure(input: PromptInput): string {
  const m = input.memory;
  if (m === undefined) return "";
  const budget = input.preset.config.memory.prompt_budget_chars;
  const cut = m.dropped > 0 ? ` (truncated: ${m.dropped} dropped)` : "";
  return `- Memory: ${m.fullChars}/${budget || "unlimited"} chars across ${m.entries} entries${cut}\n`;
}

function rolesText(input: PromptInput): string {
  const roles = input.preset.topology.roles.filter((r) => input.suggestedRoles.includes(r.id));
  return roles
    .filter((r) => r.prompt.trim() !== "")
    .map(
      (r) =>
        `Role ${r.id} (emits: ${listText(r.emits, "any")}):\n${substitute(r.prompt.trim(), input.paths, input.runId, input.preset.dir)}\n\n`,
    )
    .join("");
}

function oneLine(text: string, max: number): string {
  const flat = text.replace(/\s+/g, " ").trim();
  return flat.length > max ? `…${flat.slice(flat.length - max + 1)}` : flat;
}

export function scratchpad(history: readonly IterationSummary[]): string {
  if (history.length === 0) return "(empty)";
  return history
    .slice(-SCRATCHPAD_ITERATIONS)
    .map(
      (h) =>
        `- iteration ${h.iteration}: exit ${h.exitCode}; emitted ${listText(h.emitted)}; output: ${oneLine(h.outputTail, 160) || "(none)"}`,
    )
    .join("\n");
}

export function renderPrompt(input: PromptInput): string {
  const { preset, paths, view } = input;
  const ev = preset.config.event_loop;
  const tool = paths.toolPath;
  // harness.md may name the tool and the state dir by placeholder, as role prompts do.
  const harness = preset.harnessInstructions
    ? `Live harness instructions:\n${substitute(preset.harnessInstructions, paths, input.runId, preset.dir)}\n\n`
    : "";
  const bp = backpressureNote(view);
  const tasksBlock = renderTasksBlock(input.tasks, preset.config.tasks.prompt_budget_chars);
  // A role that may not emit the completion event is never told to (it would be refused).
  const mayComplete =
    input.allowedEvents.length === 0 || input.allowedEvents.includes(ev.completion_event);
  return (
    "You are inside an autoloop harness: an event-driven loop that prompts you again until the objective is done.\n\n" +
    harness +
    contextPressure(input) +
    (bp ? `Backpressure:\n${bp}\n\n` : "") +
    gateNote(input) +
    evidenceNote(view, input.iteration) +
    (input.completionNote ? `${input.completionNote}\n\n` : "") +
    `Objective:\n${input.objective || "(none given)"}\n\n` +
    joinNote(view, input.iteration) +
    guidanceSection(view.guidance) +
    (input.scheduleHistory ? `${input.scheduleHistory}\n\n` : "") +
    (input.memory?.text ? `${input.memory.text}\n\n` : "") +
    (tasksBlock ? `${tasksBlock}\n\n` : "") +
    rolesText(input) +
    `Iteration: ${input.iteration}/${input.maxIterations}\n` +
    `Recent event: ${view.recentEvent}\n` +
    `Suggested next roles now: ${listText(input.suggestedRoles)}\n` +
    `Allowed next events now: ${listText(input.allowedEvents, "(any)")}\n` +
    `Completion event: ${ev.completion_event}${mayComplete ? "" : " (not yours to emit now: hand off instead)"}\n` +
    (mayComplete ? `Completion promise fallback: ${ev.completion_promise}\n` : "") +
    `Required events: ${listText(ev.required_events)}\n` +
    `Loop-owned working files belong under: ${paths.stateDir}\n` +
    `Event tool: ${tool}\n\n` +
    evidenceRules(preset.topology.gates, input.allowedEvents) +
    parallelRules(preset, input.allowedEvents, paths.stateDir) +
    `Current scratchpad:\n${scratchpad(input.history)}\n\n` +
    (mayComplete
      ? "Use the event tool to publish an allowed handoff event or the completion event, and to track tasks:\n"
      : "Use the event tool to publish one of the allowed events above, and to track tasks:\n") +
    `${tool} emit <allowed-topic> "brief handoff summary"\n` +
    (mayComplete ? `${tool} emit ${ev.completion_event} "brief completion summary"\n` : "") +
    `${tool} task add "work item"    ${tool} task complete task-1    ${tool} task list\n\n` +
    askText(ev.ask_event, input.askTimeoutMs ?? 300_000, tool) +
    spawnText(preset.config.chain_spawn.presets, input.allowedEvents, tool) +
    "Backpressure rule: an event outside the allowed set is rejected and you are asked to re-route.\n" +
    "Completion gate: completion is refused while open (non-soft) tasks remain.\n" +
    "Plain text alone does not publish an event. Prefer the event tool over the stdout completion promise.\n"
  );
}

/**
 * The operator's guidance since the last prompt (an answer to a question among it), as the
 * public autoloop renders it: shown once, right after the objective.
 */
function guidanceSection(guidance: readonly string[]): string {
  if (guidance.length === 0) return "";
  const body =
    guidance.length === 1 ? guidance[0]! : guidance.map((g, i) => `${i + 1}. ${g}`).join("\n");
  return `## OPERATOR GUIDANCE\n\n${body}\n\n\u26a0\ufe0f Act on this guidance in this iteration. It will not be repeated.\n\n`;
}

/** How to ask a human, when the preset lets agents ask. */
function askText(event: string, timeoutMs: number, tool: string): string {
  if (event === "") return "";
  const wait = timeoutMs % 60_000 === 0 ? `${timeoutMs / 60_000} min` : `${timeoutMs / 1000} s`;
  return (
    `Need a human's decision or sign-off? Ask, as your last event of the iteration:\n` +
    `${tool} emit ${event} "your question"\n` +
    `The run then waits up to ${wait} for the answer, which reaches the next prompt as operator guidance; without one, go on as best you can.\n\n`
  );
}

/** How to ask for a chain after this run, when the preset lets its runs spawn one now. */
function spawnText(presets: readonly string[], allowed: readonly string[], tool: string): string {
  if (presets.length === 0 || (allowed.length > 0 && !allowed.includes("chain.spawn"))) return "";
  return (
    `Work for another preset (${presets.join(", ")})? Ask for it to run once this run completes:\n` +
    `${tool} emit chain.spawn '{"preset": "${presets[0]}", "objective": "what it should do", "justification": "why"}'\n\n`
  );
}

/** The loop memory a prompt shows: project memory, and the run's own unless they are one file. */
export function loopMemory(paths: RunPaths, budget: number): RenderedMemory {
  const run =
    paths.runMemoryFile === paths.projectMemoryFile
      ? materializeMemory([])
      : new MemoryStore(paths.runMemoryFile).view();
  return renderMemory(new MemoryStore(paths.projectMemoryFile).view(), run, budget);
}

/** Most of the schedule's history a prompt takes, whatever the file holds. */
const SCHEDULE_HISTORY_MAX = 4000;

/**
 * What the scheduler wrote about this schedule's recent runs (AUTOLOOP_HISTORY_FILE, read
 * once at the run's start), or "" outside a scheduled run.
 */
export function readScheduleHistory(env: NodeJS.ProcessEnv): string {
  const file = env.AUTOLOOP_HISTORY_FILE;
  if (file === undefined || file === "" || !existsSync(file)) return "";
  try {
    return readFileSync(file, "utf8").trim().slice(0, SCHEDULE_HISTORY_MAX);
  } catch {
    return "";
  }
}
