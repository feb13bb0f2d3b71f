// Reads the files a Kubernetes ConfigMap carries: the config file and every schedule file,
// named by their paths relative to the config file's folder (as they are mounted).
import { readdirSync, readFileSync } from "node:fs";
import { isAbsolute, join, relative, sep } from "node:path";
import type { CronConfig } from "../cron/config.js";
import { UserError } from "../util/errors.js";

export interface ConfigFiles {
  configText: string;
  scheduleFiles: { path: string; text: string }[];
}

export function readConfigFiles(config: CronConfig & { file: string }): ConfigFiles {
  const rel = relative(config.dir, config.schedulesDir);
  if (rel === "" || rel.startsWith("..") || isAbsolute(rel)) {
    throw new UserError(
      `schedules_dir (${config.schedulesDir}) must be a folder inside the config file's folder ` +
        `(${config.dir}) to be exported: the ConfigMap mounts both at /etc/autoloop-cron`,
    );
  }
  let names: string[] = [];
  try {
    names = readdirSync(config.schedulesDir).filter((n) => n.endsWith(".toml"));
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== "ENOENT") throw err;
  }
  return {
    configText: readFileSync(config.file, "utf8"),
    scheduleFiles: names.sort().map((name) => ({
      path: [...rel.split(sep), name].join("/"),
      text: readFileSync(join(config.schedulesDir, name), "utf8"),
    })),
  };
}
