// The prompt stage: the roles and events the topology allows after the latest event, the
// iteration's prompt rendered and written, guidance marked consumed, and `iteration.start`.
import { writeFileSync } from "node:fs";
import { allowedEvents, suggestedRoles } from "../preset/topology.js";
import { askTimeoutMs } from "./ask-step.js";
import { loopMemory, renderPrompt } from "./prompt.js";
import type { Run } from "./run-state.js";

/** What the agent is asked this iteration, and by which roles' rules. */
export interface Prompted {
  prompt: string;
  /** The routing event the iteration opened with. */
  recentEvent: string;
  roles: string[];
  allowed: string[];
}

export function promptStage(run: Run, iteration: number): Prompted {
  const { preset, view, state, journal } = run;
  const roles = suggestedRoles(preset.topology, view.recentEvent);
  const allowed = allowedEvents(preset.topology, roles);
  const prompt = renderPrompt({
    preset,
    paths: run.paths,
    runId: run.runId,
    objective: state.redirected ?? run.opts.objective,
    iteration,
    maxIterations: run.maxIterations,
    view,
    suggestedRoles: roles,
    allowedEvents: allowed,
    tasks: run.tasks.view(),
    history: state.history,
    completionNote: state.completionNote,
    askTimeoutMs: askTimeoutMs(preset, run.opts.trigger),
    memory: loopMemory(run.paths, preset.config.memory.prompt_budget_chars),
    scheduleHistory: run.scheduleHistory,
  });
  state.completionNote = "";
  if (view.guidance.length > 0)
    journal.operator(
      "operator.guidance.consumed",
      iteration,
      `Consumed ${view.guidance.length} guidance message(s)`,
      "harness",
    );
  writeFileSync(run.paths.promptPath, prompt);
  // What the agent writes from now on is held to this routing, through the event tool or not.
  view.expect({ recentEvent: view.recentEvent, roles, allowed });
  journal.system("iteration.start", iteration, {
    recent_event: view.recentEvent,
    suggested_roles: roles.join(","),
    allowed_events: allowed.join(","),
    backpressure: view.backpressure ? `rejected ${view.backpressure.emitted}` : "",
    prompt,
  });
  return { prompt, recentEvent: view.recentEvent, roles, allowed };
}
