// A schedule as the scheduler holds it, once its [[schedule]] entry passed (schedule-entry.ts
// checks and builds it; schedule-file.ts parses a file of them).
import type { SecretRef } from "../../util/secrets.js";
import type { CronConfig } from "../config/config.js";
import type { CommonSettings, PresetSettings } from "../config/schedule-keys.js";

export type { ScheduleBudget } from "../config/fields.js";

/**
 * Where a preset run's agent works: "worktree" (`--worktree`: its own git worktree) or
 * "shared" (`--no-worktree`: the project's checkout); unset, the preset's `core.isolation_mode`.
 */
export const ISOLATION_MODES = ["worktree", "shared"] as const;
export type IsolationMode = (typeof ISOLATION_MODES)[number];

/** A schedule: its settings (declared in schedule-keys.ts) and the rest. */
export interface ScheduleCommon extends CommonSettings {
  name: string;
  /** The file it came from (as shown in messages) and its index there. */
  file: string;
  index: number;
  cron: string;
  /** The run's work dir, absolute. */
  projectDir: string;
  /** An event trigger, `POST /hooks/<name>` (`hook`); absent: none. */
  hook?: HookSpec;
  monitor: {
    gateRejections: number;
    gateGraceMs: number;
    stallAfterMs: number;
    missedGraceMs: number;
    costFactor?: number;
    costRuns?: number;
  };
}

/** A schedule's event trigger: its secret (never in the file) and what a request may be. */
export interface HookSpec {
  secret: SecretRef;
  /** Standard Webhooks signatures, or GitHub's `X-Hub-Signature-256`. */
  format: "standard" | "github";
  maxBytes: number;
  perMinute: number;
}

export type Schedule = ScheduleCommon &
  (
    | ({
        kind: "preset";
        /** A preset name, or an absolute path when written as a path. */
        preset: string;
        /** The preset's folder, set by validateAll once it resolves. */
        presetDir: string | undefined;
        objective: string;
        maxIterations: number | undefined;
        /** Absolute paths of env files for the agent (`autoloop run --env-file`). */
        envFiles: string[];
        /** Unset: the preset's own `core.isolation_mode`. */
        isolation: IsolationMode | undefined;
        /** `--set key=value` overrides of the preset, from the schedule's `set`. */
        sets: string[];
      } & PresetSettings)
    | {
        kind: "chain";
        /** A [[chain]] of chains.toml in the project dir. */
        chain: string;
        objective: string;
        envFiles: string[];
        /** `--set key=value` overrides of every step's preset. */
        sets: string[];
      }
    | { kind: "command"; command: string[] }
  );

export type ScheduleDefaults = CronConfig["defaults"] & {
  monitor: ScheduleCommon["monitor"];
};

export interface ScheduleFileContext {
  /** Folder of the schedule file: relative project_dir and preset paths resolve here. */
  fileDir: string;
  /** Folder of the config file: the default project_dir. */
  configDir: string;
}
