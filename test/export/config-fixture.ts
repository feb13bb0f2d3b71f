// Test helper: a config folder in a temp dir with schedule files, and exportCommand run on it
// with captured output.
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { exportCommand } from "../../src/cli/cron-export.js";
import { AUTOLOOP_CRON, tempDir } from "../helpers/cli.js";

export interface Schedule {
  name: string;
  cron: string;
  extra?: string;
}

/** A command schedule (no preset to resolve), with `extra` TOML lines. */
export function scheduleToml({ name, cron, extra = "" }: Schedule): string {
  return `[[schedule]]\nname = "${name}"\ncron = "${cron}"\nkind = "command"\ncommand = ["true"]\n${extra}\n`;
}

export function configDir(config: string, schedules: Record<string, Schedule[]>): string {
  const dir = tempDir("autoloop-export-");
  writeFileSync(join(dir, "autoloop-cron.toml"), config);
  mkdirSync(join(dir, "schedules"));
  for (const [file, list] of Object.entries(schedules)) {
    writeFileSync(join(dir, "schedules", file), list.map(scheduleToml).join("\n"));
  }
  return dir;
}

export async function runExport(argv: string[], cwd: string) {
  let stdout = "";
  let stderr = "";
  const io = {
    stdout: (t: string) => {
      stdout += t;
    },
    stderr: (t: string) => {
      stderr += t;
    },
    cwd,
    node: process.execPath,
    entry: AUTOLOOP_CRON,
  };
  const code = await exportCommand(argv, undefined, io);
  return { code, stdout, stderr };
}
