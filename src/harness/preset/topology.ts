// Multi-role topology: which roles should act after an event, and which events they may emit.
import { type FieldProblem, ValidationError } from "../../util/errors.js";
import type { TopologyFile } from "./schema.js";

export interface Role {
  id: string;
  emits: string[];
  prompt: string;
}

export interface Topology {
  roles: Role[];
  /** Routing event → role ids that should act next. */
  handoff: Map<string, string[]>;
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
  if (problems.length > 0) throw new ValidationError(problems);
  return {
    roles: file.role.map((role, i) => ({
      id: role.id,
      emits: role.emits,
      prompt: prompts[i] ?? "",
    })),
    handoff,
  };
}

/** Roles that should act after `recentEvent`: its handoff entry, else every role. */
export function suggestedRoles(topology: Topology, recentEvent: string): string[] {
  return topology.handoff.get(recentEvent) ?? topology.roles.map((r) => r.id);
}

/** Union of the suggested roles' `emits`; an empty list allows every event. */
export function allowedEvents(topology: Topology, roles: readonly string[]): string[] {
  const out = new Set<string>();
  for (const role of topology.roles) {
    if (roles.includes(role.id)) for (const e of role.emits) out.add(e);
  }
  return [...out];
}
