// The example schedules of the preset library (schedules/examples/*.toml) pass the real
// `autoloop-cron validate`, each alone and all together, with their presets found among the
// bundled ones; the demo config (schedules/*.toml) does not load them.
import { copyFileSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { basename, join } from "node:path";
import { execa } from "execa";
import { parse } from "smol-toml";
import { afterEach, describe, expect, it } from "vitest";
import { AUTOLOOP_CRON, cleanEnv, cleanupTempDirs, ROOT, tempDir } from "../helpers/cli.js";

afterEach(cleanupTempDirs);

const EXAMPLES = join(ROOT, "schedules", "examples");
const FILES = readdirSync(EXAMPLES).filter((n) => n.endsWith(".toml"));
const LIBRARY = [
  "debug-failure",
  "dependency-updates",
  "docs-drift",
  "flaky-test-hunt",
  "implement-spec",
  "perf-pass",
  "qa-pass",
  "security-review",
  "simplify",
  "test-writer",
  "weekly-summary",
];

/** A config dir whose schedules/ holds `files` and whose presets_dir is empty: bundled presets only. */
function configWith(files: Record<string, string>): string {
  const dir = tempDir("autoloop-examples-");
  mkdirSync(join(dir, "schedules"));
  mkdirSync(join(dir, "presets"));
  writeFileSync(
    join(dir, "autoloop-cron.toml"),
    'state_dir = "state"\nschedules_dir = "schedules"\npresets_dir = "presets"\n',
  );
  for (const [name, text] of Object.entries(files))
    writeFileSync(join(dir, "schedules", name), text);
  return dir;
}

async function validate(configFile: string) {
  const run = await execa(
    process.execPath,
    [AUTOLOOP_CRON, "validate", "--json", "--config", configFile],
    {
      env: cleanEnv(),
      reject: false,
    },
  );
  return {
    exitCode: run.exitCode,
    report: JSON.parse(run.stdout) as ValidateJson,
    stderr: run.stderr,
  };
}

interface ValidateJson {
  ok: boolean;
  schedules: Array<{ name: string; cron: string; timezone: string }>;
  problems: Array<{ message: string }>;
}

const example = (name: string) => readFileSync(join(EXAMPLES, name), "utf8");

describe("schedules/examples", () => {
  it("has one example per preset of the library, each running its own bundled preset", () => {
    expect(FILES.map((f) => basename(f, ".toml")).sort()).toEqual(LIBRARY);
    for (const file of FILES) {
      const [schedule] = (parse(example(file)) as { schedule: Array<Record<string, unknown>> })
        .schedule;
      const preset = basename(file, ".toml");
      expect(schedule).toMatchObject({ name: preset, preset });
      for (const key of ["cron", "timezone", "objective", "isolation", "timeout"])
        expect(schedule, `${file}: ${key}`).toHaveProperty(key);
    }
  });

  it.each(FILES)("%s passes autoloop-cron validate", async (file) => {
    const dir = configWith({ [file]: example(file) });
    const { exitCode, report, stderr } = await validate(join(dir, "autoloop-cron.toml"));
    expect(report.problems, stderr).toEqual([]);
    expect(exitCode).toBe(0);
    expect(report.schedules.map((s) => s.name)).toEqual([basename(file, ".toml")]);
  });

  it("validates all together, and refuses one whose preset is not bundled", async () => {
    const all = Object.fromEntries(FILES.map((f) => [f, example(f)]));
    const together = await validate(join(configWith(all), "autoloop-cron.toml"));
    expect(together.exitCode, JSON.stringify(together.report.problems)).toBe(0);
    expect(together.report.schedules.map((s) => s.name).sort()).toEqual(LIBRARY);
    const misspelt = example("security-review.toml").replace(
      'preset = "security-review"',
      'preset = "security-reveiw"',
    );
    const refused = await validate(join(configWith({ "x.toml": misspelt }), "autoloop-cron.toml"));
    expect(refused.exitCode).toBe(1);
    expect(refused.report.problems.map((p) => p.message).join("\n")).toContain(
      'did you mean "security-review"?',
    );
  });

  it("is not loaded by the demo config, which reads schedules/*.toml only", async () => {
    // A copy of the repository's config and schedules/ folder, examples/ included.
    const dir = tempDir("autoloop-demo-config-");
    copyFileSync(join(ROOT, "autoloop-cron.toml"), join(dir, "autoloop-cron.toml"));
    mkdirSync(join(dir, "schedules", "examples"), { recursive: true });
    for (const name of readdirSync(join(ROOT, "schedules")).filter((n) => n.endsWith(".toml")))
      copyFileSync(join(ROOT, "schedules", name), join(dir, "schedules", name));
    for (const file of FILES)
      copyFileSync(join(EXAMPLES, file), join(dir, "schedules", "examples", file));
    const { exitCode, report } = await validate(join(dir, "autoloop-cron.toml"));
    expect(exitCode).toBe(0);
    const names = report.schedules.map((s) => s.name);
    expect(names.length).toBeGreaterThan(0);
    for (const name of LIBRARY) expect(names).not.toContain(name);
  });
});
