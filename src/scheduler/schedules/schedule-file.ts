// schedules/*.toml: one or more [[schedule]] entries per file. Parsing is pure; the folder
// (./schedule-folder.ts) reads every *.toml. A bad file yields problems and no schedules.
import { isAbsolute, relative, sep } from "node:path";
import * as z from "zod";
import type { FieldProblem } from "../../util/errors.js";
import { runSteps, StepPace, type Steps } from "../../util/steps.js";
import { parseToml, schemaProblems } from "../../util/toml-input.js";
import type { CronConfig } from "../config/config.js";
import type { Schedule, ScheduleDefaults, ScheduleFileContext } from "./schedule.js";
import { scheduleBuilder, scheduleEntry, scheduleFileSchema } from "./schedule-entry.js";

export {
  ISOLATION_MODES,
  type IsolationMode,
  type Schedule,
  type ScheduleCommon,
  type ScheduleDefaults,
  type ScheduleFileContext,
} from "./schedule.js";
export { isPresetPath, MAX_OBJECTIVE_BYTES } from "./schedule-entry.js";

/** The defaults a schedule file is parsed with, taken from the config. */
export function scheduleDefaults(config: CronConfig): ScheduleDefaults {
  const { gateRejections, gateGraceMs, stallAfterMs, missedGraceMs, costFactor, costRuns } =
    config.monitor;
  return {
    ...config.defaults,
    monitor: { gateRejections, gateGraceMs, stallAfterMs, missedGraceMs, costFactor, costRuns },
  };
}

/** Parses one schedule file; any problem means no schedules from it. */
export function parseScheduleFile(
  fileName: string,
  text: string | Uint8Array,
  defaults: ScheduleDefaults,
  context: ScheduleFileContext,
): ParsedScheduleFile {
  return runSteps(parseScheduleFileSteps(fileName, text, defaults, context));
}

export interface ParsedScheduleFile {
  schedules: Schedule[];
  problems: FieldProblem[];
}

// Entries checked per step, 10 to 100 (one check per entry would pay zod's set-up 100,000
// times), ~2 ms a step: while cold, a hundred take far longer than that.
const entriesPace = new StepPace(2, 10, 100);
const entries = z.array(scheduleEntry);

/** `parseScheduleFile` as steps: the TOML, then the entries' checks a chunk per step. */
export function* parseScheduleFileSteps(
  fileName: string,
  text: string | Uint8Array,
  defaults: ScheduleDefaults,
  context: ScheduleFileContext,
): Steps<ParsedScheduleFile> {
  const toml = parseToml(fileName, text);
  if (!toml.ok) return { schedules: [], problems: [toml.problem] };
  yield;
  const file = scheduleFileSchema.safeParse(toml.value);
  if (!file.success) {
    const problems = schemaProblems(fileName, scheduleFileSchema, file.error, toml.value);
    return { schedules: [], problems };
  }
  const build = scheduleBuilder(fileName, defaults, context);
  // Each checked chunk becomes schedules at once and its TOML tables are let go: passing objects
  // die young, not copied by a scavenge or two (the longest pauses of a 100,000-schedule load).
  const all = file.data.schedule;
  (toml.value as { schedule?: unknown }).schedule = undefined;
  const schedules: Schedule[] = [];
  const problems: FieldProblem[] = [];
  for (let from = 0, done = 0; from < all.length; from += done) {
    const chunk = all.slice(from, from + entriesPace.size);
    done = chunk.length;
    all.fill(undefined, from, from + done);
    const started = performance.now();
    const parsed = entries.safeParse(chunk);
    if (!parsed.success)
      for (const issue of parsed.error.issues) {
        const k = issue.path[0] as number;
        const own = { issues: [{ ...issue, path: issue.path.slice(1) }] } as typeof parsed.error;
        problems.push(
          ...schemaProblems(fileName, scheduleEntry, own, chunk[k], `schedule[${from + k}]`),
        );
      }
    else if (problems.length === 0)
      for (let k = 0; k < parsed.data.length; k++) schedules.push(build(parsed.data[k]!, from + k));
    entriesPace.took(chunk.length, performance.now() - started);
    yield;
  }
  if (problems.length > 0) return { schedules: [], problems };
  return { schedules, problems: [] };
}

/** How a file is named in messages: relative to the config folder when inside it. */
export function displayPath(configDir: string, file: string): string {
  const rel = relative(configDir, file);
  return rel !== "" && !rel.startsWith("..") && !isAbsolute(rel) ? rel.split(sep).join("/") : file;
}
