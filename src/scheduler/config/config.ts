// autoloop-cron.toml loaded into a fully resolved CronConfig (absolute paths, durations in ms):
// pure parsing in parseConfigText, file reading in loadConfig and findConfig.
import { existsSync, readFileSync } from "node:fs";
import { dirname, isAbsolute, join, resolve } from "node:path";
import { type FieldProblem, UserError, ValidationError } from "../../util/errors.js";
import { autoloopEntry } from "../../util/package-root.js";
import type { SecretRef } from "../../util/secrets.js";
import { decodeUtf8, nearestKey, parseTomlText, schemaProblems } from "../../util/toml-input.js";
import {
  type ChannelConfig,
  channelSecrets,
  resolveChannels,
  secretRef,
  takeLiteralSecrets,
} from "./channels.js";
import { type DigestConfig, resolveDigests } from "./digests.js";
import { type LeaseStoreConfig, resolveHa } from "./ha.js";
import { type InheritedSettings, inheritedSettings } from "./schedule-keys.js";
import { configSchema, type LogLevel, type RawConfig } from "./schema.js";

export const CONFIG_FILE_NAME = "autoloop-cron.toml";

export interface CronConfig {
  /** Absolute path of the config file; undefined when running on defaults. */
  file: string | undefined;
  /** The folder relative paths resolve against (the config file's, or the working dir). */
  dir: string;
  stateDir: string;
  schedulesDir: string;
  presetsDir: string;
  harness: string[];
  maxConcurrentRuns: number;
  onShutdown: "terminate" | "detach";
  shutdownGraceMs: number;
  logLevel: LogLevel;
  heartbeat: { url: SecretRef; intervalMs: number } | undefined;
  /** How often a launcher refreshes its runs' heartbeats in `<state_dir>/heartbeats/`. */
  runHeartbeatMs: number;
  http:
    | { enabled: false }
    | {
        enabled: true;
        host: string;
        port: number;
        /** The status page on `/` (`[http] status_page`): on by default only on loopback. */
        statusPage: boolean;
        /** Its buttons (pause, fire, ack...): on by default only on a loopback address. */
        actions: boolean;
        /** Names the page answers to besides loopback names and IP literals (`[http] hosts`). */
        hosts: string[];
      };
  /** Where people reach the status page (`[http] public_url`), without a trailing slash. */
  publicUrl?: string;
  /** [defaults]: what every schedule holds unless it writes its own (schedule-keys.ts). */
  defaults: InheritedSettings;
  monitor: {
    /** Absolute glob patterns of extra journals to watch. */
    journals: string[];
    gateRejections: number;
    gateGraceMs: number;
    stallAfterMs: number;
    /** Without a daemon, a slot with no run this long after its time is `missed`. */
    missedGraceMs: number;
    /** `run_costly` when a run costs this many times its schedule's median; 0: off. */
    costFactor: number;
    /** How many of the schedule's last runs with a known cost that median is taken over. */
    costRuns: number;
    /** Channels for alerts not tied to a schedule (and for schedules with alert = []). */
    alert: string[];
  };
  /** `[ha] lease`: daemons on this state dir take turns by a lease this long; undefined: no lease. */
  leaseMs: number | undefined;
  /** Where the lease lives: the state dir's files, or a Kubernetes Lease (`[ha.kubernetes]`). */
  leaseStore: LeaseStoreConfig;
  /** How long ended runs' state is kept (`[retention]`; Infinity: forever). */
  retention: {
    /** A run's ledger events (runs/<date>/<run-id>.jsonl), by its slot's date. */
    runsMs: number;
    /** Its output log and exit file (output/<run-id>.*), by their last write. */
    outputMs: number;
    /** The history files handed to runs at their start (history/*.md). */
    historyMs: number;
  };
  channels: ChannelConfig[];
  /** Recurring maintenance windows (`[[silence]]`). */
  windows: MaintenanceWindow[];
  /** Summaries sent at their cron (`[[digest]]`). */
  digests: DigestConfig[];
}

/** A recurring window in which matching alerts wait: from each cron match, for `durationMs`. */
export interface MaintenanceWindow {
  name: string;
  cron: string;
  durationMs: number;
  timezone: string;
  /** [] matches every schedule; likewise kinds. */
  schedules: string[];
  kinds: string[];
  comment?: string;
}

/**
 * The bundled harness: this package's `autoloop` CLI (dist/bin/autoloop.cjs, built by
 * `npm run build`) run by the current Node. The path is taken from the repository root, which
 * is two levels up both from src/cron/ and from the bundles in dist/bin/.
 */
export const BUNDLED_HARNESS = [process.execPath, autoloopEntry()];

/** Parses config text (pure); `dir` is the folder relative paths resolve against. */
export function parseConfigText(
  fileName: string,
  text: string,
  dir: string,
  file?: string,
): { config: CronConfig; problems: [] } | { config: undefined; problems: FieldProblem[] } {
  const toml = parseTomlText(fileName, text);
  if (!toml.ok) return { config: undefined, problems: [toml.problem] };
  const input = toml.value;
  const problems: FieldProblem[] = [];
  if (Array.isArray(input.channel)) {
    input.channel.forEach((c, i) => {
      if (c !== null && typeof c === "object")
        problems.push(...takeLiteralSecrets(fileName, i, c as Record<string, unknown>));
    });
  }
  const parsed = configSchema.safeParse(input);
  if (!parsed.success)
    problems.push(...schemaProblems(fileName, configSchema, parsed.error, input));
  if (!parsed.success || problems.length > 0) return { config: undefined, problems };
  const config = resolveConfig(parsed.data, fileName, dir, file, problems);
  return problems.length > 0 ? { config: undefined, problems } : { config, problems: [] };
}

/** Resolves a config the schema accepted: paths made absolute, defaults filled, names checked. */
function resolveConfig(
  raw: RawConfig,
  fileName: string,
  dir: string,
  file: string | undefined,
  problems: FieldProblem[],
): CronConfig {
  const abs = (p: string) => (isAbsolute(p) ? p : resolve(dir, p));
  const { channels, problems: channelProblems } = resolveChannels(raw.channel, fileName, dir);
  problems.push(...channelProblems);
  const names = channels.map((c) => c.name);
  const defaults = inheritedSettings(raw.defaults);
  checkAlertNames(fileName, names, "defaults.alert", defaults.alert, problems);
  checkAlertNames(fileName, names, "monitor.alert", raw.monitor.alert ?? [], problems);
  for (const [i, d] of raw.digest.entries())
    checkAlertNames(fileName, names, `digest[${i}].channels`, d.channels, problems);
  const [program, ...args] = raw.harness ?? BUNDLED_HARNESS;
  return {
    file,
    dir,
    stateDir: abs(raw.state_dir),
    schedulesDir: abs(raw.schedules_dir),
    presetsDir: abs(raw.presets_dir),
    // A relative program path with a slash is relative to the config file, like other paths.
    harness: [program!.includes("/") ? abs(program!) : program!, ...args],
    maxConcurrentRuns: raw.max_concurrent_runs,
    onShutdown: raw.on_shutdown,
    shutdownGraceMs: raw.shutdown_grace,
    logLevel: raw.log_level,
    heartbeat: resolveHeartbeat(raw, fileName, dir, problems),
    runHeartbeatMs: raw.run_heartbeat_interval,
    http: resolveHttp(raw.http, fileName, problems),
    ...(raw.http.public_url !== undefined && {
      publicUrl: raw.http.public_url.replace(/\/+$/, ""),
    }),
    defaults,
    monitor: resolveMonitor(raw.monitor, abs, names),
    ...resolveHa(raw.ha, fileName, abs, problems),
    retention: {
      runsMs: raw.retention.runs,
      outputMs: raw.retention.output,
      historyMs: raw.retention.history,
    },
    channels,
    windows: raw.silence.map((w) => ({
      name: w.name,
      cron: w.cron,
      durationMs: w.duration,
      timezone: w.timezone ?? defaults.timezone,
      schedules: w.schedules,
      kinds: w.kinds,
      ...(w.comment !== undefined && { comment: w.comment }),
    })),
    digests: resolveDigests(raw.digest, channels, defaults.timezone, fileName, problems),
  };
}

/** Each name of an alert list (`field`) is a [[channel]]'s. */
function checkAlertNames(
  fileName: string,
  names: string[],
  field: string,
  list: string[],
  problems: FieldProblem[],
): void {
  list.forEach((name, i) => {
    if (names.includes(name)) return;
    const near = nearestKey(name, names);
    const hint =
      near === undefined
        ? `one of: ${names.join(", ") || "(no channels defined)"}`
        : `did you mean ${JSON.stringify(near)}?`;
    problems.push({
      file: fileName,
      field: `${field}[${i}]`,
      found: JSON.stringify(name),
      expected: `the name of a [[channel]] (${hint})`,
    });
  });
}

/** `heartbeat_url` (a secret reference) with its interval; undefined when unset or invalid. */
function resolveHeartbeat(
  raw: RawConfig,
  fileName: string,
  dir: string,
  problems: FieldProblem[],
): CronConfig["heartbeat"] {
  const url = secretRef(raw, "heartbeat_url", dir, true);
  if (url === undefined) return undefined;
  if ("problem" in url) {
    problems.push({
      file: fileName,
      field: "heartbeat_url",
      found: "several references",
      expected: url.problem,
    });
    return undefined;
  }
  return { url, intervalMs: raw.heartbeat_interval };
}

/** `[http]`: the listen address, and the page and its buttons on by default only on loopback. */
function resolveHttp(
  h: RawConfig["http"],
  fileName: string,
  problems: FieldProblem[],
): CronConfig["http"] {
  const http = parseListen(h.listen);
  if (http === undefined) {
    problems.push({
      file: fileName,
      field: "http.listen",
      found: JSON.stringify(h.listen),
      expected: 'host:port such as "127.0.0.1:9464" or "[::1]:9464", or "" to disable',
    });
  }
  return http?.enabled === true
    ? {
        ...http,
        statusPage: h.status_page ?? isLoopbackHost(http.host),
        actions: h.actions ?? isLoopbackHost(http.host),
        hosts: h.hosts,
      }
    : { enabled: false };
}

/** `[monitor]` with its defaults; alerts not tied to a schedule go to every channel by default. */
function resolveMonitor(
  m: RawConfig["monitor"],
  abs: (p: string) => string,
  names: string[],
): CronConfig["monitor"] {
  return {
    journals: m.journals.map(abs),
    gateRejections: m.gate_rejections ?? 3,
    gateGraceMs: m.gate_grace ?? 1_800_000,
    stallAfterMs: m.stall_after ?? 1_200_000,
    missedGraceMs: m.missed_grace ?? 300_000,
    costFactor: m.cost_factor ?? 0,
    costRuns: m.cost_runs ?? 10,
    alert: m.alert ?? names,
  };
}

/** 127.0.0.0/8, ::1 and localhost: only this machine can connect. */
export function isLoopbackHost(host: string): boolean {
  return host === "localhost" || host === "::1" || /^127(\.\d{1,3}){3}$/.test(host);
}

function parseListen(
  listen: string,
): { enabled: false } | { enabled: true; host: string; port: number } | undefined {
  if (listen.trim() === "") return { enabled: false };
  const m = /^(?:\[([0-9a-fA-F:.]+)\]|([^:\s[\]]+)):(\d{1,5})$/.exec(listen.trim());
  const port = Number(m?.[3]);
  if (m === null || port > 65535) return undefined;
  return { enabled: true, host: m[1] ?? m[2]!, port };
}

/** The configuration used when no config file exists: every default, relative to `dir`. */
export function defaultConfig(dir: string): CronConfig {
  const result = parseConfigText(CONFIG_FILE_NAME, "", resolve(dir));
  if (result.config === undefined) throw new ValidationError(result.problems);
  return result.config;
}

/** Reads and resolves a config file; throws UserError when missing, ValidationError when bad. */
export function loadConfig(path: string, cwd: string = process.cwd()): CronConfig {
  const file = resolve(cwd, path);
  let bytes: Buffer;
  try {
    bytes = readFileSync(file);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === "EISDIR")
      throw new UserError(
        `${path}: is a folder, not a config file; pass the file, e.g. --config ${join(path, "autoloop-cron.toml")}`,
      );
    if (code === "EACCES")
      throw new UserError(
        `${path}: cannot read the config file (permission denied); check its mode and owner`,
      );
    if (code !== "ENOENT") throw err;
    throw new UserError(
      `${path}: config file not found (looked at ${file}); create it or pass --config FILE`,
    );
  }
  const decoded = decodeUtf8(path, bytes);
  if (!decoded.ok) throw new ValidationError([decoded.problem]);
  const text = decoded.text;
  const result = parseConfigText(path, text, dirname(file), file);
  if (result.config === undefined) throw new ValidationError(result.problems);
  return result.config;
}

/** The environment variable naming the config file when `--config` is not given. */
export const CONFIG_ENV = "AUTOLOOP_CRON_CONFIG";

/**
 * The CLI's lookup, as a service user expects: `--config FILE`, else $AUTOLOOP_CRON_CONFIG,
 * else ./autoloop-cron.toml. None of them: an error (exit 2), never a silent default that
 * would report "All clear" about an empty state folder.
 */
export function findConfig(
  explicit: string | undefined,
  cwd: string = process.cwd(),
  env: NodeJS.ProcessEnv = process.env,
): CronConfig {
  if (explicit !== undefined) return loadConfig(explicit, cwd);
  const fromEnv = env[CONFIG_ENV];
  if (fromEnv !== undefined && fromEnv !== "") return loadConfig(fromEnv, cwd);
  if (existsSync(resolve(cwd, CONFIG_FILE_NAME))) return loadConfig(CONFIG_FILE_NAME, cwd);
  throw new UserError(
    `no config: no --config given, ${CONFIG_ENV} is not set and there is no ${CONFIG_FILE_NAME} in ${cwd}; ` +
      `pass --config /etc/autoloop-cron/autoloop-cron.toml (or set ${CONFIG_ENV}), or run where ${CONFIG_FILE_NAME} is`,
  );
}

/** Environment variables the config names as secrets (`*_env` keys). */
export function secretEnvNames(config: CronConfig): string[] {
  const refs = [config.heartbeat?.url, ...config.channels.flatMap(channelSecrets)];
  return refs.flatMap((r) => (r?.kind === "env" ? [r.name] : []));
}

/**
 * The environment runs are launched with: the daemon's, without the alert channels',
 * heartbeat's and hooks' secrets, which an agent with a shell has no business reading.
 */
export function runEnvironment(
  config: CronConfig,
  base: NodeJS.ProcessEnv,
  /** More variables that hold secrets: the schedules' hook secrets (see hooks/delivery.ts). */
  alsoSecret: Iterable<string> = [],
): NodeJS.ProcessEnv {
  const env = { ...base };
  for (const name of secretEnvNames(config)) delete env[name];
  for (const name of alsoSecret) delete env[name];
  return env;
}
