// The wave stage: when an iteration's last emit is a wave trigger (`explore.parallel`,
// `<event>.parallel`), its branch objectives run at once as branch runs (wave-branch.ts);
// at the join barrier the harness, never an agent, journals `<trigger>.joined` with their
// results, and the route stage goes on from there. The trigger is checked again here with
// the preset's own rules: the event tool's checks run where the agent can change them.
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
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
import type { Terminal } from "./judge.js";
import type { Prompted } from "./prompt-step.js";
import type { Emitted } from "./record-step.js";
import { interruptedStop, overBudget, type Run, runtimeStop } from "./run-state.js";
import { listenForControl } from "./start.js";
import {
  type BranchResult,
  type BranchSpec,
  branchSucceeded,
  type RunBranch,
  runBranch,
} from "./wave-branch.js";
import { joinedPayload, joinText, specText } from "./wave-files.js";

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
    run.journal.system("event.invalid", iteration, {
      recent_event: prompted.recentEvent,
      emitted: last.topic,
      suggested_roles: prompted.roles.join(","),
      allowed_events: prompted.allowed.join(","),
    });
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
  const results = await Promise.all(
    specs.map(async (spec) => {
      const result = await runBranch(run, spec, start, specs.length);
      run.journal.system("wave.branch.finish", iteration, {
        wave_id: waveId,
        branch_id: spec.branchId,
        stop_reason: result.stopReason,
        elapsed_ms: String(result.elapsedMs),
        output: result.output,
      });
      return result;
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
  return overBudget(run) ?? joinWave(run, iteration, prompted, wave, waveId, results, elapsedMs);
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
 * The barrier's verdict (the public `wait_for_all`): a branch past its timeout times the wave
 * out, one that did not succeed fails it, and both stop the run; else the harness journals
 * the join and `<trigger>.joined` with the branches' results, which routes the next iteration.
 */
function joinWave(
  run: Run,
  iteration: number,
  prompted: Prompted,
  wave: Wave,
  waveId: string,
  results: BranchResult[],
  elapsedMs: number,
): Terminal | undefined {
  run.journal.system("wave.aggregate", iteration, {
    wave_id: waveId,
    mode: "wait_for_all",
    satisfied_by_branch_id: "",
    aggregate_timed_out: "false",
  });
  const timedOut = results
    .filter((r) => r.stopReason === "backend_timeout")
    .map((r) => r.spec.branchId);
  const failed = results.filter((r) => !branchSucceeded(r.stopReason)).map((r) => r.spec.branchId);
  if (timedOut.length > 0 || failed.length > 0) {
    const [topic, key, ids, reason] =
      timedOut.length > 0
        ? ["wave.timeout", "timed_out_branches", timedOut, "parallel_wave_timeout"]
        : ["wave.failed", "failed_branches", failed, "parallel_wave_failed"];
    run.journal.system(topic, iteration, { wave_id: waveId, [key]: ids.join(",") });
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
  run.view.acceptJoin(waveId);
  run.journal.operator(joined, iteration, joinedPayload(waveId, results), "harness");
  run.view.refresh();
  run.progress(
    `iteration ${iteration}: ${waveId} joined (${results.length} branches, ${(elapsedMs / 1000).toFixed(1)}s); ${joined} journaled`,
  );
  return undefined;
}
