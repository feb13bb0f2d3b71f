// `preflight`: each preset schedule's agent logins checked that long before its next slot,
// once per slot, so an expired login pages while there is time to log in again; what each
// check found is kept in preflight.json, from which the monitor raises and resolves
// auth_expiring. The daemon runs these checks; where none runs, the monitor does
// (monitor/preflight-checks.ts).
import type { Logger } from "pino";
import { readEnvFiles } from "../../util/env-file.js";
import type { Schedule } from "../schedules/schedule-file.js";
import { agentsOfPreset, checkCredentials } from "./credentials.js";
import {
  type PreflightState,
  readPreflightState,
  type ScheduleCheck,
  writePreflightState,
} from "./preflight-file.js";

type PresetSchedule = Extract<Schedule, { kind: "preset" }>;

/** Whether `s` has its agents' logins checked before its slots (`preflight`). */
export function checksLogins(s: Schedule): s is PresetSchedule & { preflightMs: number } {
  return s.kind === "preset" && s.preflightMs !== undefined;
}

/**
 * The slot to check for now: the schedule's next fire time, once it is at most `preflightMs`
 * away, unless that slot was checked already. Pure.
 */
export function preflightDue(
  preflightMs: number | undefined,
  nextFire: Date | undefined,
  checkedSlot: string | undefined,
  now: number,
): Date | undefined {
  if (preflightMs === undefined || nextFire === undefined) return undefined;
  if (nextFire.getTime() - preflightMs > now) return undefined;
  return nextFire.toISOString() === checkedSlot ? undefined : nextFire;
}

export interface PreflightContext {
  stateDir: string;
  log: Pick<Logger, "info" | "warn">;
  /** The environment runs are launched with (the schedule's env and env files go over it). */
  env(): NodeJS.ProcessEnv;
  now(): number;
}

export class Preflights {
  private readonly state: PreflightState;
  /** The slot each schedule was last checked for (or tried: a preset that does not load). */
  private readonly tried = new Map<string, string>();
  private readonly checking = new Set<string>();

  constructor(private readonly ctx: PreflightContext) {
    this.state = readPreflightState(ctx.stateDir);
    for (const [name, check] of Object.entries(this.state)) this.tried.set(name, check.slot);
  }

  /**
   * Starts the checks due now, each in the background: a slow CLI holds nothing up. Settles
   * when they have ended, with how many there were (the monitor pages what they found at
   * once; the daemon does not wait).
   */
  tick(
    schedules: Iterable<Schedule>,
    nextFire: (name: string) => Date | undefined,
  ): Promise<number> {
    const now = this.ctx.now();
    const started: Promise<unknown>[] = [];
    for (const s of schedules) {
      if (!checksLogins(s) || this.checking.has(s.name)) continue;
      const slot = preflightDue(s.preflightMs, nextFire(s.name), this.tried.get(s.name), now);
      if (slot !== undefined) started.push(this.check(s, slot));
    }
    return Promise.all(started).then(() => started.length);
  }

  /** Checks each agent of `s` for `slot`, keeps what was found and logs it. */
  async check(s: PresetSchedule, slot: Date): Promise<ScheduleCheck | undefined> {
    this.checking.add(s.name);
    this.tried.set(s.name, slot.toISOString());
    try {
      const env = { ...this.ctx.env(), ...readEnvFiles(s.envFiles), ...s.env };
      const agents = agentsOfPreset(s.presetDir ?? s.preset, s.sets);
      const checks: ScheduleCheck["agents"] = [];
      for (const a of agents) {
        const found = await checkCredentials(a, s.projectDir, env);
        // Only a check that passes ends a refusal: one that could not tell keeps it.
        const before = this.state[s.name]?.agents.find((c) => c.agent === a.agent.id)?.result;
        const result = found.kind === "unknown" && before?.kind === "refused" ? before : found;
        checks.push({ agent: a.agent.id, command: a.command, result });
        const fields = { schedule: s.name, slot, agent: a.agent.id, result: result.kind };
        if (result.kind === "passed")
          this.ctx.log.info(fields, "preflight: the agent's login works");
        else this.ctx.log.warn({ ...fields, detail: result.detail }, `preflight: ${result.kind}`);
      }
      const checkedAt = new Date(this.ctx.now()).toISOString();
      const entry = { slot: slot.toISOString(), checkedAt, agents: checks };
      this.state[s.name] = entry;
      writePreflightState(this.ctx.stateDir, this.state);
      return entry;
    } catch (err) {
      this.ctx.log.warn({ err, schedule: s.name }, "preflight: the check could not be made");
      return undefined;
    } finally {
      this.checking.delete(s.name);
    }
  }
}
