// `auth_expiring`: an agent CLI whose login its check refused before a schedule's slot
// (`preflight`, in preflight.json). One condition per CLI, naming every schedule it holds up:
// one login expired is one page, however many schedules use it.
import type { PreflightState } from "../../scheduler/preflight/preflight-file.js";
import { raise } from "./condition-kinds.js";
import { type Condition, fingerprintOf } from "./conditions.js";

/** One schedule's latest check of one CLI, refused. */
export interface LoginRefused {
  agent: string;
  schedule: string;
  /** The slot the check was made for (ISO). */
  slot: string;
  checkedAt: string;
  detail: string;
}

/** The refused checks of the schedules in force (`loaded`). */
export function refusedLogins(
  state: PreflightState,
  loaded: { has(name: string): boolean },
): LoginRefused[] {
  const out: LoginRefused[] = [];
  for (const [schedule, check] of Object.entries(state)) {
    if (!loaded.has(schedule)) continue;
    for (const { agent, result } of check.agents)
      if (result.kind === "refused")
        out.push({
          agent,
          schedule,
          slot: check.slot,
          checkedAt: check.checkedAt,
          detail: result.detail,
        });
  }
  return out;
}

/** One `auth_expiring` per CLI with a refused check, its schedules in name order. */
export function loginConditions(refused: readonly LoginRefused[]): Condition[] {
  const byAgent = new Map<string, LoginRefused[]>();
  for (const r of refused) byAgent.set(r.agent, [...(byAgent.get(r.agent) ?? []), r]);
  return [...byAgent].map(([agent, all]) => {
    const sorted = [...all].sort((a, b) => a.schedule.localeCompare(b.schedule));
    const first = sorted.reduce((a, b) => (a.checkedAt <= b.checkedAt ? a : b));
    const soonest = sorted.reduce((a, b) => (a.slot <= b.slot ? a : b));
    const names = sorted.map((r) => r.schedule);
    return raise("auth_expiring", {
      agent,
      schedules: names,
      nextSlot: soonest.slot,
      detail: first.detail,
      fingerprint: fingerprintOf("auth_expiring", agent),
      summary: `the ${agent} login was refused by its check before the slot of ${soonest.slot} (${names.join(", ")}); the run would fail unless someone logs in again`,
      occurredAt: first.checkedAt,
    });
  });
}
