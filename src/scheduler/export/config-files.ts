// Reads the files a Kubernetes ConfigMap carries: the config file, every schedule file and the
// custom presets the schedules use, named by their paths relative to the config file's folder
// (as they are mounted). Bundled presets are in the image already.
import { readdirSync, readFileSync, statSync } from "node:fs";
import { isAbsolute, join, relative, sep } from "node:path";
import { UserError } from "../../util/errors.js";
import { bundledPresetsDir } from "../../util/package-root.js";
import type { CronConfig } from "../config/config.js";
import type { Schedule } from "../schedules/schedule-file.js";

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

/** Every file under `dir`, as paths relative to it, sorted. */
function filesUnder(dir: string, prefix = ""): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir).sort()) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) out.push(...filesUnder(path, `${prefix}${name}/`));
    else out.push(`${prefix}${name}`);
  }
  return out;
}

const inside = (parent: string, child: string) => {
  const rel = relative(parent, child);
  return rel !== "" && !rel.startsWith("..") && !isAbsolute(rel);
};

/**
 * The files of the custom presets `schedules` use, for the ConfigMap; bundled presets are in
 * the image. A preset outside the config file's folder cannot be mounted where the schedule
 * would look for it: refused, naming the schedule and the fix.
 */
export function readPresetFiles(
  config: CronConfig & { file: string },
  schedules: readonly Schedule[],
): { path: string; text: string }[] {
  const dirs = new Map<string, string>();
  for (const s of schedules) {
    if (s.kind !== "preset" || s.presetDir === undefined) continue;
    if (inside(bundledPresetsDir(), s.presetDir) || s.presetDir === bundledPresetsDir()) continue;
    if (!inside(config.dir, s.presetDir)) {
      throw new UserError(
        `schedule "${s.name}": its preset ${s.presetDir} is outside the config file's folder (${config.dir}), so the ConfigMap cannot carry it; copy it to ${join(config.presetsDir, s.preset.split("/").at(-1) ?? s.preset)} and name it there`,
      );
    }
    dirs.set(s.presetDir, relative(config.dir, s.presetDir).split(sep).join("/"));
  }
  const files: { path: string; text: string }[] = [];
  for (const [dir, rel] of dirs)
    for (const file of filesUnder(dir))
      files.push({ path: `${rel}/${file}`, text: readFileSync(join(dir, file), "utf8") });
  return files;
}
