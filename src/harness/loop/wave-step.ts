// The wave stage: when an iteration's last emit is a wave trigger (`explore.parallel`,
// `<event>.parallel`), its branch objectives run at once as branch runs (wave-branch.ts);
// at the join barrier the harness, never an agent, journals `<trigger>.joined` with their
// results, and the route stage goes on from there. The trigger is checked again here with
// the preset's own rules: the event tool's checks run where the agent can change them.
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { recordJoin } from "../control/wave-joins.js";
import {
  dispatchBase,
  EXPLORE,
  isJoinedTopic,
  isParallelTrigger,
  joinedTopicOf,
  parseObjectives,
  triggerRefusal,
} from "../preset/parallel.js";
import { allowedEvents, suggestedRoles } from "../preset/topology.js";
import { isSystemTopic } from "../run-view.js";
import { journalInvalid } from "./invalid-step.js";
import type { Terminal } from "./judge.js";
import type { Prompted } from "./prompt-step.js";
import type { Emitted } from "./record-step.js";
import { interruptedStop, overBudget, type Run, runtimeStop } from "./run-state.js";
import { listenForControl } from "./start.js";
import { awaitBranches } from "./wave-barrier.js";
import type { BranchResult, BranchSpec, RunBranch } from "./wave-branch.js";
import { joinedPayload, joinText, specText } from "./wave-files.js";
import { type AggregateOutcome, waveVerdict } from "./wave-verdict.js";

/** A terminal when the wave ends the run; undefined: no wave, or it joined (route on). */
export async function waveStage(
  run: Run,
  iteration: number,
  prompted: Prompted,
  emitted: Emitted,
  start: RunBranch,
): Promise<Terminal | undefined> {
  const last = emitted.at(-1);
  if (last === undefined || last.shape !== "agent") return undefined;
  if (!isParallelTrigger(last.topic) && !isJoinedTopic(last.topic)) return undefined;
  const { parallel, event_loop } = run.preset.config;
  const refused = triggerRefusal(last.topic, {
    enabled: parallel.enabled,
    allowedEvents: prompted.allowed,
    completionEvent: event_loop.completion_event,
    isSystemTopic,
  });
  if (refused !== undefined) {
    journalInvalid(run, iteration, prompted, last.topic);
    run.view.refresh();
    run.progress(`iteration ${iteration}: ${last.topic} refused: ${refused}`);
    return undefined;
  }
  const parsed = parseObjectives(last.payload, parallel.max_branches);
  if (parsed.kind === "refused") {
    run.journal.system("wave.invalid", iteration, {
      trigger_topic: last.topic,
      reason: parsed.reason,
      active_wave_id: "",
      opening_recent_event: prompted.recentEvent,
      concurrency_source: "agent",
    });
    return {
      complete: false,
      reason: "parallel_wave_invalid",
      fields: { iteration: String(iteration) },
    };
  }
  // A run that spent its budget or its time opens no wave (the route stage would stop it after).
  const spent = overBudget(run) ?? runtimeStop(run);
  if (spent !== undefined) return spent;
  const wave = { trigger: last.topic, objectives: parsed.objectives };
  return runWave(run, iteration, prompted, wave, start);
}

interface Wave {
  trigger: string;
  objectives: string[];
}

async function runWave(
  run: Run,
  iteration: number,
  prompted: Prompted,
  wave: Wave,
  start: RunBranch,
): Promise<Terminal | undefined> {
  const waveId = `wave-${Date.now().toString(36)}${Math.floor(Math.random() * 36 ** 4).toString(36)}`;
  const waveDir = join(run.paths.stateDir, "waves", waveId);
  const began = Date.now();
  mkdirSync(join(waveDir, "branches"), { recursive: true });
  writeFileSync(
    join(waveDir, "spec.md"),
    specText(waveId, wave.trigger, prompted, wave.objectives),
  );
  run.journal.system("wave.start", iteration, {
    wave_id: waveId,
    trigger_topic: wave.trigger,
    branch_count: String(wave.objectives.length),
    opening_recent_event: prompted.recentEvent,
    opening_roles: prompted.roles.join(","),
    opening_events: prompted.allowed.join(","),
    objectives: wave.objectives.join(","),
    concurrency_source: "agent",
  });
  const specs = branchSpecs(run, prompted, wave, waveId, waveDir);
  for (const spec of specs)
    run.journal.system("wave.branch.start", iteration, {
      wave_id: waveId,
      branch_id: spec.branchId,
      objective: spec.objective,
      routing_event: spec.routingEvent,
      branch_roles: spec.roles.join(","),
      branch_events: spec.events.join(","),
    });
  run.progress(
    `iteration ${iteration}: ${wave.trigger} opened ${waveId} with ${specs.length} branches`,
  );
  const { results, outcome } = await awaitBranches(run, specs, start, (result) =>
    run.journal.system("wave.branch.finish", iteration, {
      wave_id: waveId,
      branch_id: result.spec.branchId,
      stop_reason: result.stopReason,
      elapsed_ms: String(result.elapsedMs),
      output: result.output,
    }),
  );
  // The branches' runs pointed the operator's signal at their own inboxes as they ran.
  listenForControl(run.inbox);
  // As the branch runs counted it (their journals are the agents' to write).
  for (const { spend } of results)
    run.state.spend = {
      costUsd: run.state.spend.costUsd + spend.costUsd,
      tokens: run.state.spend.tokens + spend.tokens,
      unpriced: run.state.spend.unpriced + spend.unpriced,
    };
  if (run.opts.signal.aborted) return interruptedStop(run);
  const elapsedMs = Date.now() - began;
  writeFileSync(
    join(waveDir, "join.md"),
    joinText(waveId, wave.trigger, prompted, wave.objectives, results, elapsedMs),
  );
  run.journal.system("wave.join.start", iteration, {
    wave_id: waveId,
    trigger_topic: wave.trigger,
    branch_count: String(results.length),
    elapsed_ms: String(elapsedMs),
    branch_outcomes: results.map((r) => `${r.spec.branchId}:${r.stopReason}`).join(","),
    concurrency_source: "agent",
  });
  // Branches held to what was left of a budget end `cost_budget`: the run stops on its budget.
  const joined = { waveId, results, outcome, elapsedMs };
  return overBudget(run) ?? joinWave(run, iteration, prompted, wave, joined);
}

/** What the barrier came to. */
interface Barrier {
  waveId: string;
  results: BranchResult[];
  outcome: AggregateOutcome;
  elapsedMs: number;
}

/** Each objective's branch: the roles its routing event suggests, and their events. */
function branchSpecs(
  run: Run,
  prompted: Prompted,
  wave: Wave,
  waveId: string,
  waveDir: string,
): BranchSpec[] {
  const routingEvent = wave.trigger === EXPLORE ? prompted.recentEvent : dispatchBase(wave.trigger);
  const roles = suggestedRoles(run.preset.topology, routingEvent);
  const events = allowedEvents(run.preset.topology, roles);
  return wave.objectives.map((objective, i) => {
    const branchId = `branch-${i + 1}`;
    const dir = join(waveDir, "branches", branchId);
    return { waveId, branchId, objective, trigger: wave.trigger, routingEvent, roles, events, dir };
  });
}

/**
 * The barrier's verdict under the preset's aggregate mode (wave-verdict.ts): a wave that timed
 * out or failed stops the run; else the harness journals the join and `<trigger>.joined` with
 * the branches' results, which routes the next iteration.
 */
function joinWave(
  run: Run,
  iteration: number,
  prompted: Prompted,
  wave: Wave,
  barrier: Barrier,
): Terminal | undefined {
  const { waveId, results, outcome, elapsedMs } = barrier;
  run.journal.system("wave.aggregate", iteration, {
    wave_id: waveId,
    mode: outcome.mode,
    satisfied_by_branch_id: outcome.satisfiedBy,
    aggregate_timed_out: String(outcome.timedOut),
  });
  const ended = results.map((r) => ({ branchId: r.spec.branchId, stopReason: r.stopReason }));
  const verdict = waveVerdict(outcome, ended);
  if (verdict.kind !== "joined") {
    const [topic, key, reason] =
      verdict.kind === "timeout"
        ? ["wave.timeout", "timed_out_branches", "parallel_wave_timeout"]
        : ["wave.failed", "failed_branches", "parallel_wave_failed"];
    run.journal.system(topic, iteration, { wave_id: waveId, [key]: verdict.branches.join(",") });
    return { complete: false, reason, fields: { iteration: String(iteration), wave_id: waveId } };
  }
  const joined = joinedTopicOf(wave.trigger);
  const basis = wave.trigger === EXPLORE ? prompted.recentEvent : dispatchBase(wave.trigger);
  const roles =
    wave.trigger === EXPLORE ? prompted.roles : suggestedRoles(run.preset.topology, basis);
  run.journal.system("wave.join.finish", iteration, {
    wave_id: waveId,
    trigger_topic: wave.trigger,
    joined_topic: joined,
    routing_basis: basis,
    resume_recent_event: wave.trigger === EXPLORE ? prompted.recentEvent : joined,
    resume_roles: roles.join(","),
    resume_events: (wave.trigger === EXPLORE
      ? prompted.allowed
      : allowedEvents(run.preset.topology, roles)
    ).join(","),
    elapsed_ms: String(elapsedMs),
  });
  acceptJoin(run, waveId);
  run.journal.operator(joined, iteration, joinedPayload(waveId, results), "harness");
  run.view.refresh();
  run.progress(
    `iteration ${iteration}: ${waveId} joined (${results.length} branches, ${(elapsedMs / 1000).toFixed(1)}s); ${joined} journaled`,
  );
  return undefined;
}

/** The join is this harness's: it routes now, and after a resume (the private folder says so). */
function acceptJoin(run: Run, waveId: string): void {
  try {
    recordJoin(run.privateRun, waveId);
  } catch (err) {
    run.progress(
      `warning: ${waveId} could not be recorded as joined in ${run.privateRun.dir} (${err instanceof Error ? err.message : String(err)}): a resume would not route its joined event`,
    );
  }
  run.view.acceptJoin(waveId);
}
