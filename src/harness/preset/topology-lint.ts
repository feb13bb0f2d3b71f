// What a preset's topology can never do, found before a run finds out: the roles and events
// the loop reaches from `loop.start` (following each event's handoff, or every role for an
// event with none), then required events no reachable role emits (the gate can never pass),
// a completion event no reachable role emits, roles never suggested, handoffs or events
// that lead nowhere, and evidence gates no emit can pass or that guard nothing.
import { AGENTS, type AgentAdapter, resolveAgent } from "../agents/index.js";
import { withBackend } from "./backend-overlay.js";
import { isJoinedTopic, isParallelTrigger, joinedTopicOf } from "./parallel.js";
import { parallelFindings } from "./parallel-lint.js";
import type { Preset } from "./preset.js";
import { suggestedRoles } from "./topology.js";

export interface TopologyFinding {
  severity: "error" | "warning";
  /** The key the finding is about (`required_events`, `handoff."x"`, `role "r"`...). */
  field: string;
  found: string;
  expected: string;
}

const START = "loop.start";

/** Roles suggested after `event`: its handoff's, or every role (the harness's rule). */
function next(preset: Preset, event: string): string[] {
  return suggestedRoles(preset.topology, event);
}

/**
 * The events the harness journals for an emit of `event`: its gate's refusals, or the joined
 * event a wave trigger leads to.
 */
function harnessEventsOf(preset: Preset, event: string): string[] {
  if (isParallelTrigger(event)) return [joinedTopicOf(event)];
  const gate = preset.topology.gates.find((g) => g.event === event);
  if (gate === undefined) return [];
  return gate.failed === undefined ? [gate.blocked] : [gate.blocked, gate.failed];
}

interface Reach {
  /** Roles the loop can get to from `loop.start`. */
  reached: Set<string>;
  /** Events those roles (and the harness on their behalf) can journal. */
  events: Set<string>;
  /** A reached role with no `emits` may emit anything. */
  open: boolean;
}

/** What the loop reaches from `loop.start`, following each event's handoff. */
function reach(preset: Preset, completion: string): Reach {
  const byId = new Map(preset.topology.roles.map((r) => [r.id, r]));
  const reached = new Set<string>();
  const events = new Set<string>([START]);
  const queue = [START];
  let open = false;
  while (queue.length > 0) {
    for (const id of next(preset, queue.shift()!)) {
      if (reached.has(id)) continue;
      reached.add(id);
      const role = byId.get(id);
      if (role === undefined) continue;
      if (role.emits.length === 0) open = true;
      for (const e of role.emits.flatMap((e) => [e, ...harnessEventsOf(preset, e)]))
        if (!events.has(e)) {
          events.add(e);
          // The completion event ends the loop (once its gate passes): nothing follows it.
          if (e !== completion) queue.push(e);
        }
    }
  }
  return { reached, events, open };
}

export function topologyFindings(preset: Preset): TopologyFinding[] {
  const { roles, handoff } = preset.topology;
  if (roles.length === 0) return []; // one agent, every event allowed
  const {
    completion_event: completion,
    completion_promise: promise,
    required_events: required,
  } = preset.config.event_loop;
  const { reached, events, open } = reach(preset, completion);
  const out: TopologyFinding[] = [];
  if (!open) {
    for (const e of required)
      if (!events.has(e))
        out.push({
          severity: "error",
          field: "event_loop.required_events",
          found: JSON.stringify(e),
          expected: `an event a role the loop reaches emits (none does, so the completion gate can never pass): add it to a role's emits, or drop it from required_events`,
        });
    if (!events.has(completion))
      out.push({
        severity: "warning",
        field: "event_loop.completion_event",
        found: JSON.stringify(completion),
        expected: `an event a role the loop reaches emits (none does: a run ends only when the agent prints ${JSON.stringify(promise)}, or at max_iterations)`,
      });
  }
  for (const role of roles)
    if (!reached.has(role.id))
      out.push({
        severity: "warning",
        field: `role ${JSON.stringify(role.id)}`,
        found: "a role no handoff leads to from loop.start",
        expected: "a role some handoff names (or remove it)",
      });
  // A gate's refusal is an event too: the harness journals it in place of the gated one.
  const emitted = new Set(
    roles.flatMap((r) => r.emits.flatMap((e) => [e, ...harnessEventsOf(preset, e)])),
  );
  for (const event of handoff.keys())
    if (event !== START && !emitted.has(event) && !open)
      out.push({
        severity: "warning",
        field: `handoff.${JSON.stringify(event)}`,
        found: "an event no role emits",
        expected: "an event in some role's emits (or remove the handoff)",
      });
  out.push(...gateFindings(preset, events, open), ...parallelFindings(preset));
  // A spawn request never routes (the harness acts on it once the run ends); a wave's trigger
  // routes nowhere itself (its joined event does; parallel-lint.ts).
  for (const role of roles)
    for (const event of role.emits)
      if (
        event !== completion &&
        event !== "chain.spawn" &&
        !handoff.has(event) &&
        !isParallelTrigger(event) &&
        !isJoinedTopic(event)
      )
        out.push({
          severity: "warning",
          field: `role ${JSON.stringify(role.id)}.emits`,
          found: JSON.stringify(event),
          expected: "an event a handoff routes (after one with none, every role is suggested)",
        });
  return out;
}

/** Gates no payload can pass, gates on events no reachable role emits, refusals that route nowhere. */
function gateFindings(
  preset: Preset,
  events: ReadonlySet<string>,
  open: boolean,
): TopologyFinding[] {
  const { gates, handoff } = preset.topology;
  const completion = preset.config.event_loop.completion_event;
  const out: TopologyFinding[] = [];
  gates.forEach((gate, i) => {
    gate.evidence.forEach((e, j) => {
      if (e.min !== undefined && e.max !== undefined && e.min > e.max)
        out.push({
          severity: "error",
          field: `gate[${i}].evidence[${j}]`,
          found: `${e.key}: min ${e.min} above max ${e.max}`,
          expected: `a range some value can meet (no emit of ${gate.event} can ever pass this gate): lower min or raise max`,
        });
    });
    if (!open && !events.has(gate.event))
      out.push({
        severity: "warning",
        field: `gate[${i}].event`,
        found: JSON.stringify(gate.event),
        expected:
          "an event a role the loop reaches emits (none does, so the gate guards nothing): fix the event name, or add it to a role's emits",
      });
    for (const topic of gate.failed === undefined ? [gate.blocked] : [gate.blocked, gate.failed])
      if (!handoff.has(topic) && topic !== completion)
        out.push({
          severity: "warning",
          field: `gate[${i}].${topic === gate.blocked ? "blocked" : "failed"}`,
          found: JSON.stringify(topic),
          expected: `an event a handoff routes, to the role that can supply the evidence (after one with none, every role is suggested): add [handoff] ${JSON.stringify(topic)} = ["<role>"]`,
        });
  });
  return out;
}

/**
 * A preset that publishes a report (`[outputs] publish`) outside a worktree is meant to change
 * nothing else: each agent it may run under (`backend.command` can be switched by a schedule's
 * `set`) must be held to the run's state dir. Warnings for the agents whose arguments let them
 * write in the project.
 */
export function permissionFindings(preset: Preset): TopologyFinding[] {
  const { outputs, core } = preset.config;
  const publish = outputs?.publish ?? [];
  if (publish.length === 0 || core.isolation_mode === "worktree") return [];
  const why = `since the preset publishes ${publish.join(", ")} and should change nothing else`;
  const out = writers(preset, Object.values(AGENTS)).map(({ agent, reason }) => ({
    severity: "warning" as const,
    field: `backend.agent_args.${agent}`,
    found: `an agent that may write in the project (${reason})`,
    expected: `arguments that hold ${agent} to the run's state dir, as the bundled review preset's do, ${why}`,
  }));
  // A role with a backend of its own: its command's agent (any agent, without one).
  for (const role of preset.topology.roles) {
    if (role.backend === undefined) continue;
    const own = withBackend(preset, role.backend);
    const agents =
      role.backend.command === undefined
        ? Object.values(AGENTS)
        : [resolveAgent(own.config.backend)];
    for (const { agent, reason } of writers(own, agents))
      out.push({
        severity: "warning",
        field: `role ${JSON.stringify(role.id)}.backend_args`,
        found: `an agent (${agent}) that may write in the project (${reason})`,
        expected: `arguments that hold ${agent} to the run's state dir, ${why}`,
      });
  }
  return out;
}

/** Which of `agents` the preset's backend arguments let write in the project, and why. */
function writers(
  preset: Preset,
  agents: readonly AgentAdapter[],
): Array<{ agent: string; reason: string }> {
  const { backend } = preset.config;
  return agents.flatMap(({ id, writesInProject }) => {
    const reason = writesInProject?.([...backend.args, ...(backend.agent_args?.[id] ?? [])]);
    return reason === undefined ? [] : [{ agent: id, reason }];
  });
}
