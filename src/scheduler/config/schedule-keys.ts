// A schedule's settings, each declared once: the keys it is written with and their rules, its
// built-in default, whether [defaults] may set it, and how a schedule holds it. The [[schedule]]
// and [defaults] schemas, their merge and the settings' TypeScript types all come from here.
import * as z from "zod";
import type { CatchUpPolicy } from "../timing/planner.js";
import { deliverField, deliverOf } from "./deliver.js";
import { fetchKeys } from "./fetch.js";
import {
  alertField,
  budgetField,
  budgetOf,
  CATCH_UP_MODES,
  durationField,
  envField,
  OVERLAP_POLICIES,
  retryField,
  retryOf,
  scheduleNameField,
  timezoneField,
} from "./fields.js";
import { sourceField, sourceOf } from "./source.js";

type Written<R extends z.ZodRawShape> = { [K in keyof R]?: z.output<R[K]> };

/** What a setting is, for the types derived from the table. */
interface Traits {
  /** Every schedule holds a value (the setting has a built-in default). */
  always: boolean;
  inheritable: boolean;
  only?: "preset";
}

/** One setting, read from the keys `R` (often one), held as `H`. */
export interface ScheduleKey<R extends z.ZodRawShape, H, T extends Traits> {
  /** The keys as written (in a [[schedule]], and in [defaults] when inheritable), with their rules. */
  keys: R;
  /** What a schedule holds when neither it nor [defaults] writes the keys (undefined: off). */
  builtIn: T["always"] extends true ? H : undefined;
  /** [defaults] may set it for every schedule; a schedule writing it replaces [defaults]'. */
  inheritable: T["inheritable"];
  /** Only schedules of this kind hold it (the entry's schema refuses it on the others). */
  only?: T["only"];
  /** What a schedule holds for the keys it writes, over what it would hold otherwise. */
  hold(written: Written<R>, otherwise: H | undefined): H | undefined;
  /** Never set: the traits and held type, for the types derived below. */
  readonly types?: { traits: T; held: H };
}

/** A setting written with one key `name`, held as is or as `hold` makes it. */
function key<
  K extends string,
  S extends z.ZodType,
  I extends boolean,
  H = z.output<S>,
  D extends z.output<S> | undefined = undefined,
  O extends "preset" | undefined = undefined,
>(
  name: K,
  schema: S,
  how: { default?: D; inheritable: I; hold?: (value: z.output<S>) => H | undefined; only?: O },
): ScheduleKey<
  { [P in K]: S },
  H,
  { always: [D] extends [undefined] ? false : true; inheritable: I; only: O }
> {
  const hold = how.hold ?? ((value: z.output<S>) => value as H);
  return {
    keys: { [name]: schema } as { [P in K]: S },
    builtIn: (how.default === undefined ? undefined : hold(how.default)) as never,
    inheritable: how.inheritable,
    ...(how.only !== undefined && { only: how.only }),
    hold: (written) => hold(written[name] as z.output<S>),
  };
}

/**
 * A setting written with several keys: a schedule writing one keeps the others' values.
 * (`only: undefined` is spelled out: a traits type with no key in common with `{ only?: ... }`
 * would not match it, and the setting would drop out of the derived types.)
 */
const keys = <R extends z.ZodRawShape, H>(
  setting: ScheduleKey<R, H, { always: true; inheritable: true; only: undefined }>,
) => setting;

// Shared by every schedule that keeps the default (never mutated).
const NONE: string[] = Object.freeze([]) as unknown as string[];
const NO_ENV: Record<string, string> = Object.freeze({}) as Record<string, string>;

/** Runs of its schedule a run is told about, unless the schedule says `history`. */
const DEFAULT_HISTORY = 3;

const IN_A_ROW = "a whole number of failed runs in a row, 1 or more";

/** The settings, by the name a schedule holds each under; [defaults]' first, in its order. */
export const SCHEDULE_KEYS = {
  timezone: key("timezone", timezoneField, { default: "UTC", inheritable: true }),
  overlap: key("overlap", z.enum(OVERLAP_POLICIES), { default: "skip", inheritable: true }),
  timeoutMs: key("timeout", durationField(1000), { default: 7_200_000, inheritable: true }),
  catchUp: keys({
    keys: { catch_up: z.enum(CATCH_UP_MODES), catch_up_window: durationField() },
    builtIn: { mode: "latest", windowMs: 21_600_000 } as CatchUpPolicy,
    inheritable: true,
    hold: (written, otherwise) => ({
      mode: written.catch_up ?? otherwise!.mode,
      windowMs: written.catch_up_window ?? otherwise!.windowMs,
    }),
  }),
  /** Channel names; [] means the monitor's channels. */
  alert: key("alert", alertField, { default: NONE, inheritable: true }),
  /** The scheduler pauses the schedule after this many failed runs in a row (off by default). */
  pauseAfterFailures: key(
    "pause_after_failures",
    z.number({ error: IN_A_ROW }).int(IN_A_ROW).min(1, IN_A_ROW),
    { inheritable: true },
  ),
  /** What a preset schedule's runs may spend (no limit by default). */
  budget: key("budget", budgetField, { inheritable: true, hold: budgetOf, only: "preset" }),
  /** Retries of a slot whose run failed (none by default; `attempts = 1`: none). */
  retry: key("retry", retryField, { inheritable: true, hold: retryOf }),
  /** Where a worktree run's commits go: a pull request per schedule (off by default). */
  deliver: key("deliver", deliverField, { inheritable: true, hold: deliverOf }),
  /** Where its runs take their work from: issues of a tracker (off by default). */
  source: key("source", sourceField, { inheritable: false, hold: sourceOf }),
  /** A worktree run fetches its remote first and starts from there (off by default). */
  fetch: key("fetch", fetchKeys.fetch, { inheritable: true }),
  /** The remote it fetches (default: the pull request's, else "origin"). */
  fetchRemote: key("fetch_remote", fetchKeys.fetch_remote, { inheritable: true }),
  /** The branch it starts from (default: the pull request's base, else the remote's HEAD). */
  fetchBase: key("fetch_base", fetchKeys.fetch_base, { inheritable: true }),
  /** How long before each slot its agents' logins are checked (off by default). */
  preflightMs: key("preflight", durationField(60_000), { inheritable: true, only: "preset" }),
  jitterMs: key("jitter", durationField(), { default: 0, inheritable: false }),
  after: key("after", z.array(scheduleNameField), { default: NONE, inheritable: false }),
  env: key("env", envField, {
    default: NO_ENV,
    inheritable: false,
    hold: (env) => (Object.keys(env).length === 0 ? NO_ENV : env),
  }),
  enabled: key("enabled", z.boolean(), { default: true, inheritable: false }),
  /** How many of its recent runs a run's prompt tells about (0: none). */
  history: key("history", z.number().int().min(0).max(20), {
    default: DEFAULT_HISTORY,
    inheritable: false,
  }),
};

// The types a schedule and [defaults] hold, derived from the table.
type Table = typeof SCHEDULE_KEYS;
type Name = keyof Table;
type TraitsOf<F extends Name> = NonNullable<Table[F]["types"]>["traits"];
type HeldOf<F extends Name> = NonNullable<Table[F]["types"]>["held"];
type NamesWhere<C> = { [F in Name]: TraitsOf<F> extends C ? F : never }[Name];
type Held<N extends Name> = {
  [F in N as TraitsOf<F>["always"] extends true ? F : never]: HeldOf<F>;
} & { [F in N as TraitsOf<F>["always"] extends true ? never : F]?: HeldOf<F> };

/** The settings every schedule holds. */
export type CommonSettings = Held<NamesWhere<{ only?: undefined }>>;
/** The settings a preset schedule holds besides. */
export type PresetSettings = Held<NamesWhere<{ only: "preset" }>>;
/** The settings [defaults] gives every schedule. */
export type InheritedSettings = Held<NamesWhere<{ inheritable: true }>>;

// The rules of the keys as written, every one optional (a missing key is the setting's default).
type Union<U> = (U extends unknown ? (x: U) => void : never) extends (x: infer I) => void
  ? I
  : never;
type Optional<R> = { [K in keyof R]: R[K] extends z.ZodType ? z.ZodOptional<R[K]> : never };
type KeysOf<N extends Name> = Optional<Union<Table[N]["keys"]>>;

interface Setting {
  name: string;
  keys: string[];
  spec: ScheduleKey<z.ZodRawShape, unknown, Traits>;
}
const SETTINGS: Setting[] = Object.entries(SCHEDULE_KEYS).map(([name, spec]) => ({
  name,
  keys: Object.keys(spec.keys),
  spec: spec as unknown as Setting["spec"],
}));
const rulesOf = (settings: Setting[]) =>
  Object.fromEntries(
    settings.flatMap((s) =>
      Object.entries(s.spec.keys).map(([k, rule]) => [k, (rule as z.ZodType).optional()]),
    ),
  );
const INHERITABLE = SETTINGS.filter((s) => s.spec.inheritable);
const COMMON = SETTINGS.filter((s) => s.spec.only === undefined);
const PRESET = SETTINGS.filter((s) => s.spec.only === "preset");

/** Every setting's keys as a [[schedule]] entry writes them. */
export const scheduleKeyRules = rulesOf(SETTINGS) as KeysOf<Name>;
/** [defaults]: the inheritable settings' keys. */
export const defaultsSchema = z.strictObject(
  rulesOf(INHERITABLE) as KeysOf<NamesWhere<{ inheritable: true }>>,
);

/** What every schedule holds when nothing is written. */
const BUILT_IN: Record<string, unknown> = Object.fromEntries(
  SETTINGS.map((s) => [s.name, s.spec.builtIn]),
);

/**
 * Sets on `target` what each of `settings` holds: from the keys `written` has, over
 * `otherwise`'s value; a value that is undefined (a setting off) is left out.
 */
function holdInto(
  target: Record<string, unknown>,
  settings: Setting[],
  written: Record<string, unknown>,
  otherwise: Record<string, unknown>,
  intern: (value: unknown) => unknown,
): void {
  for (const { name, keys, spec } of settings) {
    let value = otherwise[name];
    for (const k of keys) {
      if (written[k] === undefined) continue;
      value = intern(spec.hold(written, value));
      break;
    }
    if (value !== undefined) target[name] = value;
  }
}

/** What [defaults] as parsed gives every schedule, built-in defaults included. */
export function inheritedSettings(written: z.output<typeof defaultsSchema>): InheritedSettings {
  const held: Record<string, unknown> = {};
  holdInto(held, INHERITABLE, written, BUILT_IN, (v) => v);
  return held as InheritedSettings;
}

/**
 * A file's merge of its entries' settings over [defaults] (`inherited`): `hold(target, entry,
 * kind)` sets each setting the entry's kind holds on `target`. `intern` lets a file's schedules
 * share repeated written values.
 */
export function settingsMerge(
  inherited: InheritedSettings,
  intern: (value: unknown) => unknown,
): (target: object, entry: object, kind: string) => void {
  const otherwise = { ...BUILT_IN, ...inherited };
  return (target, entry, kind) => {
    const t = target as Record<string, unknown>;
    const e = entry as Record<string, unknown>;
    holdInto(t, COMMON, e, otherwise, intern);
    if (kind === "preset") holdInto(t, PRESET, e, otherwise, intern);
  };
}
