// Test helpers for the scheduler: a config dir with schedules, and an in-process daemon.
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import pino from "pino";
import { type CronConfig, loadConfig } from "../../src/scheduler/config/config.js";
import type { DaemonEvents } from "../../src/scheduler/daemon/daemon.js";
import { SchedulerDaemon } from "../../src/scheduler/daemon/daemon.js";

export const silentLogger = pino({ level: "silent" });

/** Writes autoloop-cron.toml and schedules/test.toml into `dir`; returns the loaded config. */
export function writeCronConfig(
  dir: string,
  schedules: string,
  extra = "",
  /** More `[http]` lines (it has listen = "", no server). */
  http = "",
): CronConfig {
  mkdirSync(join(dir, "schedules"), { recursive: true });
  mkdirSync(join(dir, "work"), { recursive: true });
  writeFileSync(
    join(dir, "autoloop-cron.toml"),
    `state_dir = "state"\n[http]\nlisten = ""\n${http}[defaults]\ncatch_up = "none"\n${extra}`,
  );
  writeFileSync(join(dir, "schedules", "test.toml"), schedules);
  return loadConfig(join(dir, "autoloop-cron.toml"));
}

/** A command schedule firing every second, running node with `script`. */
export function commandSchedule(name: string, script: string, extra = ""): string {
  return `[[schedule]]\nname = "${name}"\ncron = "* * * * * *"\nkind = "command"\ncommand = [${JSON.stringify(process.execPath)}, "-e", ${JSON.stringify(script)}]\nproject_dir = "../work"\n${extra}\n`;
}

/** An in-process daemon, started (schedules loaded, catch-up done, queue running). */
export async function startDaemon(
  config: CronConfig,
  logger: pino.Logger = silentLogger,
): Promise<SchedulerDaemon> {
  const daemon = new SchedulerDaemon(config, { logger });
  await daemon.start();
  return daemon;
}

/** A logger whose JSON lines are kept in `lines`, parsed. */
export function capturingLogger(): { logger: pino.Logger; lines: Array<Record<string, unknown>> } {
  const lines: Array<Record<string, unknown>> = [];
  const logger = pino({ level: "info" }, { write: (line: string) => lines.push(JSON.parse(line)) });
  return { logger, lines };
}

/** Resolves with the first event of `name` matching `predicate`. */
export function nextEvent<K extends keyof DaemonEvents>(
  daemon: SchedulerDaemon,
  name: K,
  predicate: (...args: DaemonEvents[K]) => boolean = () => true,
  timeoutMs = 15_000,
): Promise<DaemonEvents[K][0]> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`no ${String(name)} event within ${timeoutMs} ms`)),
      timeoutMs,
    );
    const listener = (...args: DaemonEvents[K]) => {
      if (!predicate(...args)) return;
      clearTimeout(timer);
      daemon.off(name, listener as never);
      resolve(args[0]);
    };
    daemon.on(name, listener as never);
  });
}
