// Multi-role topology: which roles should act after an event, and which events they may emit.
import { type FieldProblem, ValidationError } from "../../util/errors.js";
import { type AgentId, isCliAgent } from "../agents/index.js";
import { blockedTopicOf, type Gate } from "./evidence.js";
import { joinedRoutingBasis } from "./parallel.js";
import type { TopologyFile } from "./schema.js";

/** A role's own backend settings (the reference's `backend_*` keys), over `backend.*`. */
export interface RoleBackend {
  command?: string | undefined;
  /** `backend_kind` naming one of our CLIs: its grammar, and its command unless one is given. */
  agent?: Exclude<AgentId, "command"> | undefined;
  model?: string | undefined;
  args?: string[] | undefined;
  prompt_mode?: "arg" | "stdin" | "file" | undefined;
  timeout_ms?: number | undefined;
}

export interface Role {
  id: string;
  emits: string[];
  prompt: string;
  /** Set when the role overrides any backend setting. */
  backend?: RoleBackend | undefined;
}

export interface Topology {
  roles: Role[];
  /** Routing event → role ids that should act next. */
  handoff: Map<string, string[]>;
  /** Evidence gates, their `blocked` topic derived when unset. */
  gates: Gate[];
}

export function buildTopology(file: TopologyFile, prompts: string[], fileName: string): Topology {
  const problems: FieldProblem[] = [];
  const ids = new Set<string>();
  file.role.forEach((role, i) => {
    if (ids.has(role.id)) {
      problems.push({
        file: fileName,
        field: `role[${i}].id`,
        found: JSON.stringify(role.id),
        expected: "a role id used once",
      });
    }
    ids.add(role.id);
  });
  const handoff = new Map<string, string[]>();
  for (const [event, roles] of Object.entries(file.handoff)) {
    roles.forEach((id, i) => {
      if (!ids.has(id)) {
        problems.push({
          file: fileName,
          field: `handoff.${JSON.stringify(event)}[${i}]`,
          found: JSON.stringify(id),
          expected: `one of the role ids ${[...ids].map((r) => JSON.stringify(r)).join(", ") || "(none defined)"}`,
        });
      }
    });
    handoff.set(event, roles);
  }
  const gates = file.gate.map((g) => ({
    event: g.event,
    requires: g.requires,
    evidence: g.evidence.map((e) => ({
      key: e.key,
      type: e.type,
      min: e.min,
      max: e.max,
      status: e.status,
    })),
    blocked: g.blocked ?? blockedTopicOf(g.event),
    failed: g.failed,
  }));
  gates.forEach((g, i) => {
    if (gates.findIndex((o) => o.event === g.event) !== i)
      problems.push({
        file: fileName,
        field: `gate[${i}].event`,
        found: JSON.stringify(g.event),
        expected: "an event one [[gate]] guards (merge the two gates' requirements)",
      });
  });
  if (problems.length > 0) throw new ValidationError(problems);
  return {
    roles: file.role.map((role, i) => ({
      id: role.id,
      emits: role.emits,
      prompt: prompts[i] ?? "",
      backend: roleBackend(role),
    })),
    handoff,
    gates,
  };
}

function roleBackend(role: TopologyFile["role"][number]): RoleBackend | undefined {
  const backend: RoleBackend = {
    command: role.backend_command,
    agent: isCliAgent(role.backend_kind) ? role.backend_kind : undefined,
    model: role.backend_model,
    args: role.backend_args,
    prompt_mode: role.backend_prompt_mode,
    timeout_ms: role.backend_timeout_ms,
  };
  return Object.values(backend).some((v) => v !== undefined) ? backend : undefined;
}

/**
 * Roles that should act after `recentEvent`: its handoff entry, else every role. A wave's
 * `<event>.parallel.joined` routes as `<event>` unless a handoff names it.
 */
export function suggestedRoles(topology: Topology, recentEvent: string): string[] {
  return (
    topology.handoff.get(recentEvent) ??
    topology.handoff.get(joinedRoutingBasis(recentEvent)) ??
    topology.roles.map((r) => r.id)
  );
}

/** Union of the suggested roles' `emits`; an empty list allows every event. */
export function allowedEvents(topology: Topology, roles: readonly string[]): string[] {
  const out = new Set<string>();
  for (const role of topology.roles) {
    if (roles.includes(role.id)) for (const e of role.emits) out.add(e);
  }
  return [...out];
}

/** Whether `topic` is one of `allowed` (an empty list allows every event). */
export function eventAllowed(allowed: readonly string[], topic: string): boolean {
  return allowed.length === 0 || allowed.includes(topic);
}
