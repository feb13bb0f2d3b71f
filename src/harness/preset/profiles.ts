// Profiles (the public autoloop's): per-role prompt fragments kept outside the preset, in
// `<work dir>/.autoloop/profiles/<name>/<preset>/<role>.md` (`repo:<name>`) or
// `~/.config/autoloops/profiles/<name>/<preset>/<role>.md` (`user:<name>`), appended to the
// role's prompt. `profiles.default` names those on for every run, `--profile` adds more.
import { existsSync, readdirSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";
import { UserError } from "../../util/errors.js";
import { linkUnder, readSmallRegularFile } from "../../util/untrusted-file.js";
import type { Preset } from "./preset.js";
import { isProfileSpec } from "./schema.js";

export interface ProfileSpec {
  scope: "repo" | "user";
  name: string;
}

/** A `--profile` or `profiles.default` spec, refused unless well formed. */
export function parseProfileSpec(spec: string, where: string): ProfileSpec {
  if (!isProfileSpec(spec))
    throw new UserError(
      `${where}: profile ${JSON.stringify(spec)} is not "repo:<name>" or "user:<name>" (a name of letters, digits, . _ -), e.g. repo:strict-review`,
    );
  const colon = spec.indexOf(":");
  return { scope: spec.slice(0, colon) as ProfileSpec["scope"], name: spec.slice(colon + 1) };
}

export function profileDir(spec: ProfileSpec, workDir: string, home = homedir()): string {
  return spec.scope === "repo"
    ? join(workDir, ".autoloop", "profiles", spec.name)
    : join(home, ".config", "autoloops", "profiles", spec.name);
}

/** The specs in force: `profiles.default` (unless turned off), then the command line's. */
/** The operator's choice for a run: the profiles given, and whether the defaults are left out. */
export interface ProfileChoice {
  given: string[];
  noDefaults: boolean;
}

export function activeProfiles(
  preset: Preset,
  cli: readonly string[],
  noDefaults: boolean,
): string[] {
  return [...(noDefaults ? [] : preset.config.profiles.default), ...cli];
}

/**
 * Appends each active profile's fragments to the roles' prompts, in profile order and file
 * order; returns the warnings (a profile with nothing for this preset, a fragment for a role
 * it has not, a repo profile refused). A profile folder that does not exist is an error.
 * `trigger`: a repo profile is in the project's `.autoloop/`, which runs write, so only a
 * run a person starts by hand (`cli`) takes it, as the repo override (layers.ts).
 */
export function applyProfiles(
  preset: Preset,
  specs: readonly string[],
  workDir: string,
  where: string,
  trigger: string,
  home = homedir(),
): string[] {
  const warnings: string[] = [];
  const roles = new Map(preset.topology.roles.map((r) => [r.id, r]));
  for (const spec of specs) {
    const parsed = parseProfileSpec(spec, where);
    const dir = profileDir(parsed, workDir, home);
    if (parsed.scope === "repo" && trigger !== "cli") {
      warnings.push(
        `profile ${JSON.stringify(spec)} (${dir}) is not applied to a ${trigger} run: the project's .autoloop/ is the runs' to write; use a user: profile`,
      );
      continue;
    }
    if (!existsSync(dir))
      throw new UserError(
        `${where}: profile ${JSON.stringify(spec)} not found: ${dir} does not exist (create it with ${preset.name}/<role>.md fragments, or drop the profile)`,
      );
    const presetDir = join(dir, preset.name);
    // A repo profile is under the project's .autoloop/, which runs write: never through a link.
    const link = linkUnder(workDir, presetDir);
    if (link !== undefined) {
      warnings.push(`profile ${JSON.stringify(spec)} skipped: ${link} is a symbolic link`);
      continue;
    }
    if (!existsSync(presetDir)) {
      warnings.push(
        `profile ${JSON.stringify(spec)} has no fragments for preset ${JSON.stringify(preset.name)}`,
      );
      continue;
    }
    let contributed = false;
    for (const file of readdirSync(presetDir)
      .filter((f) => f.endsWith(".md"))
      .sort()) {
      const role = roles.get(file.slice(0, -3));
      if (role === undefined) {
        warnings.push(
          `profile ${JSON.stringify(spec)} has fragment for unknown role ${JSON.stringify(file.slice(0, -3))} in preset ${JSON.stringify(preset.name)}`,
        );
        continue;
      }
      const text = readSmallRegularFile(join(presetDir, file));
      if (text === undefined) {
        warnings.push(
          `profile ${JSON.stringify(spec)}: ${join(presetDir, file)} skipped (a link, not a regular file, or over 1 MiB)`,
        );
        continue;
      }
      role.prompt = `${role.prompt}\n${text}`;
      contributed = true;
    }
    if (!contributed)
      warnings.push(
        `profile ${JSON.stringify(spec)} contributed no fragments for preset ${JSON.stringify(preset.name)}`,
      );
  }
  return warnings;
}
