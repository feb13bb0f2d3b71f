// The harness loop: prompt → agent → events → route, until completion or a stop reason.
// Every step is journaled; the run's exit code follows its outcome class.
import { mkdirSync, writeFileSync } from "node:fs";
import { JournalWriter } from "../../journal/append.js";
import { type FieldValue, fieldText, journalTimestamp } from "../../journal/codec.js";
import { type OutcomeClass, stopReasonClass } from "../../journal/stop-reasons.js";
import { agentFailureStop, loginRefusal } from "../agents/failure.js";
import { usageFields } from "../agents/prices.js";
import { AgentReaper } from "../agents/reaper.js";
import { ControlInbox } from "../control/inbox.js";
import type { ControlRequest } from "../control/requests.js";
import type { Preset } from "../preset/preset.js";
import { allowedEvents, suggestedRoles } from "../preset/topology.js";
import { ignoreStateDir, runPaths } from "../run-paths.js";
import { redactFields, secretsRedactor } from "../run-secrets.js";
import { isSystemTopic, RunView } from "../run-view.js";
import { blockingTasks } from "../tasks/materialize.js";
import { TaskStore } from "../tasks/store.js";
import { endRunWorktree, startRunWorktree, worktreeNote } from "../worktree/run.js";
import { agentCommand, callAgent } from "./agent-call.js";
import { iterationEnv, runBoundEnv } from "./agent-env.js";
import { askHuman, askTimeoutMs } from "./ask-step.js";
import { addUsage, budgetStop, costLeft, NO_SPEND, spendFields } from "./budget.js";
import { removeEventTool, writeEventTool } from "./event-tool.js";
import { completionGate, judgeIteration, type StallState, type Terminal, tail } from "./judge.js";
import {
  assertNewRunId,
  fileSize,
  type LaunchMetadata,
  loopStartFields,
  recordLaunch,
  registryRecord,
} from "./launch-metadata.js";
import {
  cadenceOf,
  redirectedObjective,
  reviewBefore,
  reviewInstructions,
  runMetareview,
} from "./metareview.js";
import { publishOutputs } from "./outputs.js";
import {
  type IterationSummary,
  loopMemory,
  readScheduleHistory,
  renderPrompt,
  scratchpad,
} from "./prompt.js";
import { appendRegistry, registryStatus } from "./registry.js";

export interface RunOptions {
  preset: Preset;
  objective: string;
  runId: string;
  trigger: LaunchMetadata["trigger"];
  parentRunId: string;
  /** No earlier run has this id (generated, or searched for already): the journal is not read. */
  runIdKnownNew?: boolean;
  maxIterations?: number;
  workDir: string;
  env: NodeJS.ProcessEnv;
  /** Env files' variables (keys): kept out of journal and log; AUTOLOOP_SECRET_ENV names them. */
  secretEnv?: Readonly<Record<string, string>>;
  /** `autoloop resume`: go on with an ended run from this iteration (no `loop.start`). */
  resume?: {
    fromIteration: number;
    previousStopReason: string;
    addIterations: number;
    createdAt: string;
  };
  /** Aborted on SIGTERM/SIGINT: the agent's group is terminated and `loop.stop` journaled. */
  signal: AbortSignal;
  progress?: (line: string) => void;
}

export interface RunResult {
  runId: string;
  outcome: OutcomeClass;
  /** `completion_event` / `completion_promise`, or the `loop.stop` reason. */
  reason: string;
  iterations: number;
  journalFile: string;
}

/** Longest agent output kept in one journal field (the tail wins). */
const MAX_JOURNAL_OUTPUT = 64 * 1024;

/** The inbox SIGUSR1 drains: the running loop's (a chain runs its steps one at a time). */
let controlInbox: ControlInbox | undefined;
let usr1Handled = false;

/**
 * Points SIGUSR1 at `inbox`. The handler is installed once and stays: Node's own SIGUSR1
 * action would open a debugger port in a harness between runs.
 */
function listenForControl(inbox: ControlInbox | undefined): void {
  controlInbox = inbox;
  if (usr1Handled) return;
  usr1Handled = true;
  process.on("SIGUSR1", () => controlInbox?.drain());
}

export async function runLoop(opts: RunOptions): Promise<RunResult> {
  const { preset, runId } = opts;
  const ev = preset.config.event_loop;
  const backend = preset.config.backend;
  const resume = opts.resume;
  const maxIterations = resume
    ? resume.fromIteration - 1 + resume.addIterations
    : (opts.maxIterations ?? ev.max_iterations);
  const paths = runPaths(opts.workDir, runId, preset.config, opts.env);
  // A review prompt file outside the preset fails the run before it starts, not midway.
  if (preset.config.review?.enabled) reviewInstructions(preset, preset.config.review);
  const secrets = secretsRedactor(opts.secretEnv);
  const progress = (line: string) => opts.progress?.(secrets.redact(line));
  if (!opts.runIdKnownNew && resume === undefined) assertNewRunId(paths.journalFile, runId);
  mkdirSync(paths.runDir, { recursive: true });
  ignoreStateDir(paths);
  // In worktree isolation the agent works in the run's own tree; its state stays here.
  const isolated = startRunWorktree(paths, runId, preset.config);
  const worktree = isolated?.meta;
  const agentDir = isolated?.agentDir ?? paths.workDir;

  const meta: LaunchMetadata = {
    runId,
    objective: opts.objective,
    preset,
    trigger: opts.trigger,
    parentRunId: opts.parentRunId,
    maxIterations,
    paths,
    createdAt: resume?.createdAt ?? journalTimestamp(),
    ...(worktree && { worktree: { name: worktree.run_id, path: worktree.worktree_path } }),
  };
  // A resumed run's routing, guidance and gate history are in its earlier records.
  const offset = resume === undefined ? fileSize(paths.journalFile) : 0;
  const view = new RunView(paths.journalFile, runId, offset, ev.ask_event);
  const journal = new JournalWriter(paths.journalFile);
  const system = (
    topic: string,
    iteration: number | undefined,
    fields: Record<string, FieldValue>,
  ) =>
    journal.append({
      shape: "system",
      run: runId,
      iteration: iteration === undefined ? undefined : String(iteration),
      topic,
      ts: journalTimestamp(),
      v: 1,
      fields: redactFields(fields, secrets),
    });
  // The operator's words in the journal: guidance (and answers), shown in the next prompt.
  const operator = (topic: string, iteration: number | undefined, text: string, source: string) =>
    journal.append({
      shape: "agent",
      run: runId,
      iteration: iteration === undefined ? "" : String(iteration),
      topic,
      ts: journalTimestamp(),
      v: 1,
      payload: secrets.redact(text),
      source,
    });
  const tasks = new TaskStore(paths.tasksFile);
  const openTaskIds = () => blockingTasks(tasks.view()).map((t) => t.id);
  const { agent, command, args, promptMode } = agentCommand(preset, paths, runId);
  const reaper = new AgentReaper();
  const started = performance.now();
  const scheduleHistory = readScheduleHistory(opts.env);
  const history: IterationSummary[] = [];

  if (resume !== undefined)
    system("loop.resume", undefined, {
      resumed_from_iteration: String(resume.fromIteration),
      previous_stop_reason: resume.previousStopReason,
      add_iterations: String(resume.addIterations),
      new_max_iterations: String(maxIterations),
    });
  else
    system("loop.start", undefined, {
      ...loopStartFields(meta),
      ...(worktree && { worktree_branch: worktree.branch, worktree_path: worktree.worktree_path }),
    });
  writeEventTool(paths.toolPath, runBoundEnv(preset, paths, runId));
  // `control interrupt` and `control guide` reach the run by SIGUSR1 (and at each iteration),
  // through its private folder: the run's own `control/` is the agent's to write.
  const privateRun = recordLaunch(meta, agent.id, opts.env, progress);
  let turn: AbortController | undefined;
  let interruptedBy: ControlRequest | undefined;
  const inbox = new ControlInbox(privateRun.control, runId, (request) => {
    if (turn === undefined || turn.signal.aborted) return;
    interruptedBy = request;
    turn.abort();
  });
  listenForControl(inbox);
  appendRegistry(paths.registryFile, registryRecord(meta, {}));
  progress(`run ${runId} started: preset ${preset.name}, up to ${maxIterations} iterations`);

  let completed = resume === undefined ? 0 : resume.fromIteration - 1;
  let spend = NO_SPEND;
  /** Metareviews run by this process: their agent calls count in the spend like iterations'. */
  let reviews = 0;
  const cadence = cadenceOf(preset);
  /** Adds one agent call's usage to the spend; says so once when its cost is unknown. */
  const countUsage = (
    iteration: number,
    usage: Record<string, FieldValue> | undefined,
    what: string,
  ) => {
    const unpricedBefore = spend.unpriced;
    spend = addUsage(spend, usage);
    if (ev.max_cost_usd > 0 && unpricedBefore === 0 && spend.unpriced > 0) {
      const detail = `${what}'s cost is unknown (${usage === undefined ? "the agent reported no usage" : `no price for model ${usage.model}`}); max_cost_usd counts only the agent calls whose cost is known`;
      system("budget.cost_unknown", iteration, { max_cost_usd: ev.max_cost_usd, detail });
      progress(`warning: ${detail}`);
    }
  };
  let completionNote = "";
  /** A metareview's REDIRECT: the objective from then on (as in the public autoloop). */
  let redirected: string | undefined;
  let stall: StallState = { signature: "", identical: 0 };
  const finish = (t: Terminal): RunResult => {
    listenForControl(undefined);
    reaper.close();
    removeEventTool(paths);
    const publish = preset.config.outputs.publish;
    if (t.complete && publish.length > 0)
      system("outputs.published", completed, publishOutputs(publish, paths.stateDir, agentDir));
    if (worktree) {
      const finished = endRunWorktree(paths, worktree, preset.config, t.complete);
      system("worktree.finish", undefined, finished);
      progress(worktreeNote(finished, runId));
    }
    // What this process spent: a resumed run's earlier part said it in its own terminal record.
    const spent = spendFields(spend, completed - (resume ? resume.fromIteration - 1 : 0) + reviews);
    if (t.complete) system("loop.complete", completed || undefined, { reason: t.reason, ...spent });
    else system("loop.stop", completed || undefined, { reason: t.reason, ...spent, ...t.fields });
    appendRegistry(
      paths.registryFile,
      registryRecord(meta, {
        status: registryStatus(t),
        stop_reason: t.reason,
        iteration: completed,
        updated_at: journalTimestamp(),
        latest_event: t.complete ? "loop.complete" : "loop.stop",
      }),
    );
    journal.close();
    const outcome: OutcomeClass = t.complete ? "completed" : stopReasonClass(t.reason);
    progress(
      `run ${runId} ${t.complete ? "completed" : `stopped: ${t.reason}`} after ${completed} iterations`,
    );
    return {
      runId,
      outcome,
      reason: t.reason,
      iterations: completed,
      journalFile: paths.journalFile,
    };
  };

  /** `max_runtime` is wall-clock time since the start: iterations and metareviews alike. */
  const runtimeStop = (): Terminal | undefined => {
    const elapsedMs = Math.round(performance.now() - started);
    if (ev.max_runtime === undefined || elapsedMs < ev.max_runtime) return undefined;
    return {
      complete: false,
      reason: "max_runtime",
      fields: {
        completed_iterations: String(completed),
        elapsed_ms: String(elapsedMs),
        max_runtime_ms: String(ev.max_runtime),
      },
    };
  };

  const refusal = await loginRefusal({
    agent,
    command,
    args,
    cwd: agentDir,
    env: { ...opts.env, ...backend.env },
    signal: opts.signal,
    reaper,
  });
  if (refusal !== undefined) {
    system("backend.login_check", undefined, refusal.fields);
    return finish({ complete: false, reason: refusal.stop.reason, fields: refusal.stop.fields });
  }

  for (let iteration = resume?.fromIteration ?? 1; iteration <= maxIterations; iteration++) {
    if (opts.signal.aborted)
      return finish({
        complete: false,
        reason: "interrupted",
        fields: { completed_iterations: String(completed) },
      });
    const overRuntime = runtimeStop();
    if (overRuntime !== undefined) return finish(overRuntime);
    inbox.drain();
    view.refresh();
    if (reviewBefore(iteration, cadence, maxIterations)) {
      // The metareview (metareview.ts): its own agent call, before this iteration.
      const review = preset.config.review!;
      // `control interrupt` (or guidance that interrupts) stops the review as it stops a turn.
      turn = new AbortController();
      const reviewed = await runMetareview({
        preset,
        paths,
        runId,
        iteration,
        view,
        tasks: tasks.view(),
        scratchpad: scratchpad(history),
        cwd: agentDir,
        baseEnv: { ...opts.env, AUTOLOOP_SECRET_ENV: Object.keys(opts.secretEnv ?? {}).join(",") },
        reaper,
        signal: AbortSignal.any([opts.signal, turn.signal]),
        costLeft: agent.spendCap ? costLeft(spend, ev) : undefined,
        system,
        progress,
      });
      turn = undefined;
      const stoppedBy = opts.signal.aborted ? undefined : interruptedBy;
      interruptedBy = undefined;
      reviews++;
      countUsage(iteration, reviewed.usage, `the metareview before iteration ${iteration}`);
      if (opts.signal.aborted)
        return finish({
          complete: false,
          reason: "interrupted",
          fields: { completed_iterations: String(completed) },
        });
      if (stoppedBy !== undefined)
        // The operator stopped the review: no verdict, and iteration N goes on.
        system("operator.interrupt", iteration, {
          request_id: stoppedBy.id,
          reason: stoppedBy.reason,
          ...(stoppedBy.by !== undefined && { by: stoppedBy.by }),
        });
      const { verdict } = reviewed;
      if (
        stoppedBy === undefined &&
        verdict.verdict === "UNKNOWN" &&
        review.on_error !== "continue"
      ) {
        // Ended at the review's word: not a completion, the objective was not shown to be met.
        const fields = { iteration: String(iteration), detail: verdict.reasoning };
        const reason = review.on_error === "exit" ? "verdict_unknown" : "review_unknown";
        return finish({ complete: false, reason, fields });
      }
      if (verdict.verdict === "EXIT" || verdict.verdict === "TAKEOVER") {
        // A completion like any other: the gate (open tasks, required events) holds it back.
        const held = completionGate(openTaskIds, ev.required_events, view.seenTopics);
        const reason = verdict.verdict === "EXIT" ? "verdict_exit" : "verdict_takeover";
        if (held === undefined) return finish({ complete: true, reason });
        if ("openTasks" in held)
          system("task.gate", iteration, {
            blocked_topic: ev.completion_event,
            open_tasks: held.openTasks.join(","),
            via: "metareview",
          });
        else completionNote = held.note;
        view.refresh();
      }
      if (verdict.verdict === "REDIRECT") redirected = redirectedObjective(paths, opts.objective);
      // The review's spend and time count like an iteration's.
      const overBudget = budgetStop(spend, ev, completed);
      if (overBudget !== undefined) return finish({ complete: false, ...overBudget });
      const late = runtimeStop();
      if (late !== undefined) return finish(late);
      inbox.drain();
      view.refresh();
    }
    const roles = suggestedRoles(preset.topology, view.recentEvent);
    const allowed = allowedEvents(preset.topology, roles);
    const prompt = renderPrompt({
      preset,
      paths,
      runId,
      objective: redirected ?? opts.objective,
      iteration,
      maxIterations,
      view,
      suggestedRoles: roles,
      allowedEvents: allowed,
      tasks: tasks.view(),
      history,
      completionNote,
      askTimeoutMs: askTimeoutMs(preset, opts.trigger),
      memory: loopMemory(paths, preset.config.memory.prompt_budget_chars),
      scheduleHistory,
    });
    completionNote = "";
    if (view.guidance.length > 0)
      operator(
        "operator.guidance.consumed",
        iteration,
        `Consumed ${view.guidance.length} guidance message(s)`,
        "harness",
      );
    writeFileSync(paths.promptPath, prompt);
    system("iteration.start", iteration, {
      recent_event: view.recentEvent,
      suggested_roles: roles.join(","),
      allowed_events: allowed.join(","),
      backpressure: view.backpressure ? `rejected ${view.backpressure.emitted}` : "",
      prompt,
    });
    // Claude can cap its own spend: one long iteration cannot overshoot what is left by much.
    const left = agent.spendCap ? costLeft(spend, ev) : undefined;
    const iterationArgs = left === undefined ? args : [...args, ...agent.spendCap!(left)];
    system("backend.start", iteration, {
      backend_kind: backend.kind,
      command,
      args: JSON.stringify(iterationArgs),
      prompt_mode: promptMode,
      timeout_ms: String(backend.timeout_ms),
      agent: agent.id,
    });
    const env = iterationEnv({
      base: { ...opts.env, AUTOLOOP_SECRET_ENV: Object.keys(opts.secretEnv ?? {}).join(",") },
      preset,
      paths,
      runId,
      iteration,
      recentEvent: view.recentEvent,
      allowedRoles: roles,
      allowedEvents: allowed,
      prompt,
    });
    turn = new AbortController();
    const call = await callAgent({
      agent,
      invocation: {
        command,
        args: iterationArgs,
        promptMode,
        promptArg: agent.promptArg,
        prompt,
        promptPath: paths.promptPath,
        reaper,
        cwd: agentDir,
        timeoutMs: backend.timeout_ms,
        killGraceMs: backend.kill_grace_ms,
        signal: AbortSignal.any([opts.signal, turn.signal]),
        env,
      },
      paths,
      progress,
    });
    turn = undefined;
    const interrupted = opts.signal.aborted ? undefined : interruptedBy;
    interruptedBy = undefined;
    const { result, said, output, failureTail, streamFailed, exitCode } = call;
    const usage = call.usage && usageFields(call.usage, preset.config.prices);
    if (usage !== undefined) system("backend.usage", iteration, usage);
    countUsage(iteration, usage, `iteration ${iteration}`);
    const timedOut = result.kind === "timed_out";
    const journalOutput = tail(output, MAX_JOURNAL_OUTPUT);
    system("backend.finish", iteration, {
      exit_code: exitCode,
      timed_out: timedOut,
      output: journalOutput,
    });
    system("iteration.finish", iteration, {
      exit_code: exitCode,
      timed_out: timedOut,
      elapsed_s: (result.elapsedMs / 1000).toFixed(3),
      output: journalOutput,
    });
    completed = iteration;
    const mine = view.refresh();
    const emitted = mine.filter(
      (r) => r.shape === "agent" && r.iteration === String(iteration) && !isSystemTopic(r.topic),
    );
    // A completion the gate refused is no event, but it is what the agent did: say so.
    const refused = mine
      .filter((r) => r.topic === "task.gate" && r.iteration === String(iteration))
      .map((r) => `${fieldText(r, "blocked_topic")} refused (open: ${fieldText(r, "open_tasks")})`);
    const did = [...emitted.map((r) => r.topic), ...refused];
    history.push({
      iteration,
      exitCode,
      emitted: did,
      outputTail: tail(output, 400),
    });
    appendRegistry(
      paths.registryFile,
      registryRecord(meta, {
        iteration,
        updated_at: journalTimestamp(),
        latest_event: view.recentEvent,
      }),
    );
    progress(
      `iteration ${iteration}/${maxIterations}: exit ${exitCode}${timedOut ? " (timed out)" : ""}, emitted ${did.join(", ") || "nothing"} (${(result.elapsedMs / 1000).toFixed(1)}s)`,
    );
    if (interrupted !== undefined) {
      // An operator stopped this turn (`control interrupt`, or guidance that interrupts).
      system("operator.interrupt", iteration, {
        request_id: interrupted.id,
        reason: interrupted.reason,
        ...(interrupted.by !== undefined && { by: interrupted.by }),
      });
      // What the agent did before it was stopped still counts: a completion, the budget.
      if (emitted.some((r) => r.topic === ev.completion_event))
        return finish({ complete: true, reason: "completion_event" });
      const overBudget = budgetStop(spend, ev, completed);
      if (overBudget !== undefined) return finish({ complete: false, ...overBudget });
      progress(`iteration ${iteration} interrupted by the operator; the next one begins`);
      continue;
    }
    const asked = emitted.at(-1);
    if (
      ev.ask_event !== "" &&
      asked?.topic === ev.ask_event &&
      asked.shape === "agent" &&
      result.kind === "exited" &&
      result.exitCode === 0 &&
      !streamFailed
    ) {
      const overBudget = budgetStop(spend, ev, completed);
      if (overBudget !== undefined) return finish({ complete: false, ...overBudget });
      const answered = await askHuman({
        runId,
        timeoutMs: askTimeoutMs(preset, opts.trigger),
        iteration,
        question: asked.payload,
        preset,
        privateRun,
        signal: opts.signal,
        system,
        guide: (i, text) => operator("operator.guidance", i, text, "operator"),
        progress,
      });
      if (answered === "aborted")
        return finish({
          complete: false,
          reason: "interrupted",
          fields: { completed_iterations: String(completed) },
        });
      continue;
    }

    const judged = judgeIteration({
      iteration,
      result:
        result.kind === "exited"
          ? { kind: "exited", exitCode: streamFailed ? 1 : result.exitCode }
          : result,
      output,
      emitted: emitted.map((r) => ({
        topic: r.topic,
        payload: r.shape === "agent" ? r.payload : "",
      })),
      seenTopics: view.seenTopics,
      openTasks: openTaskIds,
      eventLoop: ev,
      stall,
    });
    stall = judged.stall;
    completionNote = judged.completionNote;
    if (judged.gate !== undefined) {
      system("task.gate", iteration, {
        blocked_topic: ev.completion_event,
        open_tasks: judged.gate.openTasks.join(","),
        via: "completion_promise",
      });
      view.refresh();
    }
    if (judged.next !== "continue" && judged.next !== "agent_failed") return finish(judged.next);
    // A spent budget stops the run, whether the agent went on or gave up on it.
    const overBudget = budgetStop(spend, ev, completed);
    if (overBudget !== undefined) return finish({ complete: false, ...overBudget });
    if (judged.next === "continue") continue;
    if (result.kind === "exited" || result.kind === "spawn_failed") {
      const stop = agentFailureStop(agent, result, failureTail, {
        command,
        env: opts.env,
        iteration,
        ...(said?.error && { streamError: said.error }),
      });
      return finish({ complete: false, reason: stop.reason, fields: stop.fields });
    }
  }
  return finish({
    complete: false,
    reason: "max_iterations",
    fields: {
      completed_iterations: String(completed),
      stopped_before_iteration: String(completed + 1),
      max_iterations: String(maxIterations),
    },
  });
}
