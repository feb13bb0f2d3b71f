// The metareview (the public autoloop's `[review]`): before some iterations, a dedicated agent
// call tidies the loop's working files and memory and returns a verdict. Its records, cadence
// and verdict rules follow the public harness (docs/formats.md, "Metareview").
import { existsSync, readFileSync, realpathSync, writeFileSync } from "node:fs";
import { isAbsolute, join, relative, resolve } from "node:path";
import type { FieldValue } from "../../journal/codec.js";
import { UserError } from "../../util/errors.js";
import { classifyAgentFailure } from "../agents/failure.js";
import type { AgentAdapter } from "../agents/index.js";
import { usageFields } from "../agents/prices.js";
import type { AgentReaper } from "../agents/reaper.js";
import type { AgentLaunch } from "../agents/run-as.js";
import type { AgentUsage } from "../agents/usage.js";
import { withBackend } from "../preset/backend-overlay.js";
import type { Preset } from "../preset/preset.js";
import type { PresetConfig } from "../preset/schema.js";
import type { RunPaths } from "../run-paths.js";
import type { RunView } from "../run-view.js";
import type { TaskView } from "../tasks/materialize.js";
import { renderTasksBlock, tasksPressureLine } from "../tasks/render.js";
import { type AgentCall, agentCommand, callAgent } from "./agent-call.js";
import { iterationEnv } from "./agent-env.js";
import { tail } from "./judge.js";
import { backpressureNote, listText, loopMemory, substitute } from "./prompt.js";

type ReviewConfig = NonNullable<PresetConfig["review"]>;

export interface Cadence {
  enabled: boolean;
  /** Review before every `every`th iteration (counted from 1). */
  every: number;
  adversarialFirst: boolean;
}

/** `review.every_iterations`, or by default the topology's role count (1 without roles). */
export function reviewEvery(configured: number, roleCount: number): number {
  if (configured > 0) return configured;
  return roleCount > 0 ? roleCount : 1;
}

/** The preset's cadence; off without a `[review]` table. */
export function cadenceOf(preset: Preset): Cadence {
  const review = preset.config.review;
  if (review === undefined) return { enabled: false, every: 1, adversarialFirst: false };
  return {
    enabled: review.enabled,
    every: reviewEvery(review.every_iterations, preset.topology.roles.length),
    adversarialFirst: review.adversarial_first,
  };
}

/**
 * Whether a metareview runs before `iteration` (the public rule): never before the first,
 * before the second when `adversarialFirst`, and before 1+E, 1+2E... Never past the last
 * iteration: the loop ends there (and on completion) without another review.
 */
export function reviewBefore(iteration: number, cadence: Cadence, maxIterations: number): boolean {
  if (!cadence.enabled) return false;
  if (iteration <= 1 || iteration > maxIterations) return false;
  if (iteration === 2 && cadence.adversarialFirst) return true;
  return (iteration - 1) % cadence.every === 0;
}

export type VerdictName = "CONTINUE" | "REDIRECT" | "TAKEOVER" | "EXIT" | "UNKNOWN";

export interface Verdict {
  verdict: VerdictName;
  confidence: number;
  reasoning: string;
  redirectPrompt: string;
  takeoverOutput: string;
}

const VERDICTS = new Set(["CONTINUE", "REDIRECT", "TAKEOVER", "EXIT"]);

function unknown(reasoning: string, confidence = 0): Verdict {
  return { verdict: "UNKNOWN", confidence, reasoning, redirectPrompt: "", takeoverOutput: "" };
}

/** The reviewer's verdict: the first fenced JSON block, failing closed to UNKNOWN (the public rules). */
export function parseVerdict(output: string, minConfidence: number): Verdict {
  if (output.trim() === "") return unknown("Empty review output; failing closed to UNKNOWN");
  const block = /```(?:json)?\s*\n(\{[\s\S]*?\})\s*\n```/.exec(output);
  if (block === null)
    return unknown("No structured verdict block found; failing closed to UNKNOWN");
  let json: Record<string, unknown>;
  try {
    const parsed: unknown = JSON.parse(block[1]!);
    if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed))
      return unknown("Malformed verdict JSON; failing closed to UNKNOWN");
    json = parsed as Record<string, unknown>;
  } catch {
    return unknown("Malformed verdict JSON; failing closed to UNKNOWN");
  }
  const said = typeof json.verdict === "string" ? json.verdict.toUpperCase() : "";
  const confidence = Number(json.confidence) || 0;
  if (!VERDICTS.has(said))
    return unknown(
      `Unrecognized verdict "${said || "(missing)"}"; failing closed to UNKNOWN`,
      confidence,
    );
  if (minConfidence > 0 && confidence < minConfidence)
    return unknown(
      `Verdict ${said} confidence ${confidence} below min_confidence ${minConfidence}; downgraded to UNKNOWN`,
      confidence,
    );
  const text = (v: unknown) => (typeof v === "string" ? v : "");
  return {
    verdict: said as VerdictName,
    confidence,
    reasoning: text(json.reasoning),
    redirectPrompt: text(json.redirect_prompt),
    takeoverOutput: text(json.takeover_output),
  };
}

/**
 * The preset's own review instructions: `review.prompt`, else `review.prompt_file` (default
 * `metareview.md`, inside the preset folder; a missing file is no instructions).
 */
export function reviewInstructions(preset: Preset, review: ReviewConfig): string {
  if (review.prompt !== "") return review.prompt;
  const file = resolve(preset.dir, review.prompt_file);
  const outside = (dir: string, path: string) => {
    const rel = relative(dir, path);
    return rel.startsWith("..") || isAbsolute(rel);
  };
  // By the path as written, then (for a file that exists) with every symlink resolved on both
  // sides: a preset reached through a symlinked folder (/tmp on macOS, npm link) is no escape.
  const escapes =
    outside(resolve(preset.dir), file) ||
    (existsSync(file) && outside(realpathSync(preset.dir), realpathSync(file)));
  if (escapes)
    throw new UserError(
      `review.prompt_file ${JSON.stringify(review.prompt_file)}: the file must stay within the preset directory ${preset.dir}`,
    );
  return existsSync(file) ? readFileSync(file, "utf8") : "";
}

export interface ReviewPromptInput {
  preset: Preset;
  review: ReviewConfig;
  paths: RunPaths;
  runId: string;
  iteration: number;
  view: RunView;
  tasks: TaskView;
  scratchpad: string;
}

/** The review prompt: the public wording, with this harness's context blocks. */
export function renderReviewPrompt(input: ReviewPromptInput): string {
  const { preset, paths, view } = input;
  const S = paths.stateDir;
  const T = paths.toolPath;
  const sub = (text: string) => substitute(text, paths, input.runId, preset.dir);
  const extra = reviewInstructions(preset, input.review).trim();
  const memory = loopMemory(paths, preset.config.memory.prompt_budget_chars);
  const budget = preset.config.memory.prompt_budget_chars;
  const memSummary = `${memory.fullChars}/${budget || "unlimited"} chars across ${memory.entries} entries${memory.dropped > 0 ? ` (truncated: ${memory.dropped} dropped)` : ""}`;
  const hint = view.backpressure
    ? ` — routing backpressure; last rejected: \`${view.lastRejected}\``
    : view.invalidCount > 0
      ? ` (last rejected: \`${view.lastRejected}\`)`
      : "";
  const rec =
    memory.dropped > 0 || view.invalidCount > 0
      ? "- Recommendation: consolidate stale or duplicate context before adding new memory, and re-route using the allowed-event set when needed.\n\n"
      : "\n";
  const bp = backpressureNote(view);
  const guidance =
    view.guidance.length === 0
      ? ""
      : `## OPERATOR GUIDANCE\n\n${view.guidance.length === 1 ? view.guidance[0]! : view.guidance.map((g, i) => `${i + 1}. ${g}`).join("\n")}\n\n\u26a0\ufe0f Act on this guidance in this iteration. It will not be repeated.\n\n`;
  const tasksBlock = renderTasksBlock(input.tasks, preset.config.tasks.prompt_budget_chars);
  const roles = preset.topology.roles
    .map((r) => `- ${r.id} (emits: ${listText(r.emits, "any")})`)
    .join("\n");
  return (
    "You are the metareview meta-reviewer for this loop.\n\n" +
    "Your job is to improve the loop itself, not to finish the task directly.\n" +
    "You may make bounded hygiene edits to runtime-facing loop files when that will improve the next iterations.\n" +
    // The preset's own files (roles, topology) are read once when the run starts here: edits
    // to them would not reach this run, so only the loop's working files are offered.
    `Safe edit targets include \`${S}/context.md\`, \`${S}/plan.md\`, \`${S}/progress.md\`, \`${S}/logs/\`, and \`${S}/docs/*.md\`.\n` +
    `Keep loop-owned artifacts under \`${S}/\`; do not leave loop-owned working files at the repo root.\n` +
    `Use \`${T} memory add ...\` for short durable lessons or operator notes that should persist across turns.\n` +
    `Do not edit app/product source code, tests, package manifests, generated state under \`${S}/\`, or journal history during review.\n` +
    "The scratchpad is projected from journal history, so do not try to edit it directly; instead tighten prompts, working files, or archived context so future iterations stay concise.\n" +
    "Do not emit normal loop events during review.\n\n" +
    (extra ? `Additional metareview instructions:\n${sub(extra)}\n\n` : "") +
    "Context pressure:\n" +
    `- Memory: ${memSummary}\n` +
    `- Tasks: ${tasksPressureLine(input.tasks) || "no tasks"}\n` +
    `- Invalid emits this run: ${view.invalidCount}${hint}\n` +
    rec +
    (bp ? `Backpressure:\n${bp}\n\n` : "") +
    guidance +
    (memory.text ? `${memory.text}\n` : "") +
    (tasksBlock ? `${tasksBlock}\n` : "") +
    `Review trigger iteration: ${input.iteration}\n` +
    `Latest routing event: ${view.recentEvent}\n\n` +
    (roles ? `Roles:\n${roles}\n\n` : "") +
    `Current scratchpad:\n${input.scratchpad}\n\n` +
    "Useful commands:\n" +
    `${T} memory add ...\n` +
    `${T} task list\n\n` +
    "If no improvements are needed, store a short learning explaining why and exit cleanly.\n" +
    '\n## Verdict\n\nYou MUST include a JSON verdict block in your response:\n\n```json\n{\n  "verdict": "CONTINUE | REDIRECT | TAKEOVER | EXIT",\n  "confidence": 0.85,\n  "reasoning": "One paragraph explaining the decision",\n  "redirect_prompt": "New/amended task prompt (REDIRECT only)",\n  "takeover_output": "Direct solution content (TAKEOVER only)",\n  "suggestions": ["Optional list of specific improvements for CONTINUE"]\n}\n```\n' +
    "Set `confidence` (0.0-1.0) to your actual certainty. A verdict below the loop's confidence threshold, or a missing/malformed block, is treated as UNKNOWN and holds the loop for human review — so emit a real, well-formed verdict.\n"
  );
}

/** The review's agent call settings: `review.*`, else `backend.*`. */
export function reviewBackend(preset: Preset): Preset {
  const review = preset.config.review!;
  return withBackend(preset, {
    command: review.command,
    args: review.args,
    prompt_mode: review.prompt_mode,
    timeout_ms: review.timeout_ms,
  });
}

export interface ReviewRun {
  verdict: Verdict;
  usage: Record<string, FieldValue> | undefined;
  /** The harness was stopped while the review ran. */
  interrupted: boolean;
  elapsedMs: number;
}

/** What a review needs: what its prompt is made of, and how its agent call runs. */
export interface MetareviewInput extends Omit<ReviewPromptInput, "review"> {
  cwd: string;
  baseEnv: NodeJS.ProcessEnv;
  /** `backend.run_as`: the review's agent runs as the iterations' does. */
  launch: AgentLaunch;
  reaper: AgentReaper;
  signal: AbortSignal;
  /** Claude's own spend cap, when the run has a cost budget. */
  costLeft: number | undefined;
  system: (topic: string, iteration: number, fields: Record<string, FieldValue>) => void;
  progress: (line: string) => void;
}

/** Runs one metareview before `iteration` and journals it; the loop routes the verdict. */
export async function runMetareview(input: MetareviewInput): Promise<ReviewRun> {
  const { preset, iteration, system } = input;
  const review = preset.config.review!;
  const { agent, call } = await callReviewAgent(input, review);
  const usage = call.usage && usageFields(call.usage as AgentUsage, preset.config.prices);
  if (usage !== undefined) system("backend.usage", iteration, usage);
  system("review.finish", iteration, {
    kind: "metareview",
    exit_code: call.exitCode,
    timed_out: call.result.kind === "timed_out",
    output: tail(call.output, 64 * 1024),
  });
  const elapsedMs = call.result.elapsedMs;
  if (call.result.kind === "interrupted")
    return { verdict: unknown("Review interrupted"), usage, interrupted: true, elapsedMs };
  const verdict = reviewVerdict(call, agent, review, input);
  recordVerdict(verdict, review, input);
  input.progress(
    `metareview before iteration ${iteration}: ${verdict.verdict} (confidence ${verdict.confidence})`,
  );
  return { verdict, usage, interrupted: false, elapsedMs };
}

/** Writes the review's prompt, journals its start and runs its agent to the end. */
async function callReviewAgent(
  input: MetareviewInput,
  review: ReviewConfig,
): Promise<{ agent: AgentAdapter; call: AgentCall }> {
  const { preset, paths, runId, iteration } = input;
  const { agent, command, args, promptMode } = agentCommand(reviewBackend(preset), paths, runId);
  const callArgs =
    agent.spendCap !== undefined && input.costLeft !== undefined
      ? [...args, ...agent.spendCap(input.costLeft)]
      : args;
  const prompt = renderReviewPrompt({ ...input, review });
  writeFileSync(paths.promptPath, prompt);
  input.system("review.start", iteration, {
    kind: "metareview",
    backend_kind: "command",
    backend_provider: "",
    command,
    prompt_mode: promptMode,
    prompt,
    timeout_ms: String(review.timeout_ms),
  });
  input.progress(`metareview before iteration ${iteration}: ${command}`);
  const env = iterationEnv({
    base: input.baseEnv,
    preset,
    paths,
    runId,
    iteration,
    recentEvent: "loop.start",
    allowedRoles: ["review"],
    allowedEvents: ["__metareview_disabled__"],
    prompt,
  });
  env.AUTOLOOP_REVIEW_MODE = "metareview";
  const invocation = {
    command,
    args: callArgs,
    promptMode,
    promptArg: agent.promptArg,
    prompt,
    promptPath: paths.promptPath,
    reaper: input.reaper,
    cwd: input.cwd,
    timeoutMs: review.timeout_ms,
    killGraceMs: preset.config.backend.kill_grace_ms,
    signal: input.signal,
    env,
    launch: input.launch,
  };
  const call = await callAgent({ agent, invocation, paths, progress: input.progress });
  return { agent, call };
}

/** The verdict of a call that ended: UNKNOWN (quarantined) on a timeout or a rate limit. */
function reviewVerdict(
  call: AgentCall,
  agent: AgentAdapter,
  review: ReviewConfig,
  { system, iteration }: MetareviewInput,
): Verdict {
  const failure =
    call.result.kind === "exited" && call.result.exitCode !== 0
      ? classifyAgentFailure(agent, call.result.exitCode, call.failureTail, call.said?.error)
      : undefined;
  if (call.result.kind === "timed_out") {
    system("review.quarantine", iteration, { error_class: "timeout" });
    return unknown("Review timed out; could not verify (UNKNOWN)");
  }
  if (failure?.reason === "rate_limited") {
    system("review.quarantine", iteration, { error_class: "rate_limited" });
    return unknown("Review hit a transient rate_limited error; could not verify (UNKNOWN)");
  }
  return parseVerdict(call.output, review.min_confidence);
}

/** Journals the verdict and what it asks (a redirect is also written for the next prompt). */
function recordVerdict(
  verdict: Verdict,
  review: ReviewConfig,
  { system, iteration, paths }: MetareviewInput,
): void {
  system("review.verdict", iteration, {
    verdict: verdict.verdict,
    confidence: String(verdict.confidence),
    reasoning: verdict.reasoning,
  });
  if (verdict.verdict === "UNKNOWN")
    system("review.unknown", iteration, { on_error: review.on_error, reason: verdict.reasoning });
  else if (verdict.verdict === "REDIRECT" && verdict.redirectPrompt !== "") {
    writeFileSync(redirectFile(paths), verdict.redirectPrompt);
    system("review.redirect", iteration, { redirect_prompt: verdict.redirectPrompt });
  } else if (verdict.verdict === "TAKEOVER")
    system("review.takeover", iteration, {
      takeover_output: verdict.takeoverOutput || "(no takeover output)",
    });
  else if (verdict.verdict === "EXIT")
    system("review.exit", iteration, { iteration: String(iteration), reason: verdict.reasoning });
}

export function redirectFile(paths: RunPaths): string {
  return join(paths.stateDir, "redirect.md");
}

/** The objective after a REDIRECT, for the next iteration (the public wording). */
export function redirectedObjective(paths: RunPaths, objective: string): string {
  const file = redirectFile(paths);
  const content = existsSync(file) ? readFileSync(file, "utf8") : "";
  if (content.trim() === "") return objective;
  return `IMPORTANT: The metareviewer has redirected this task. Disregard your previous approach. New direction:\n${content}\n\n${objective}`;
}
