// The schedule keys' table: each key a schedule takes from it behaves the same written in a
// [[schedule]] and, when inheritable, in [defaults]; a new key needs its example values here.
import { describe, expect, it } from "vitest";
import { parseConfigText } from "../../src/scheduler/config/config.js";
import { SCHEDULE_KEYS } from "../../src/scheduler/config/schedule-keys.js";
import {
  parseScheduleFile,
  type Schedule,
  scheduleDefaults,
} from "../../src/scheduler/schedules/schedule-file.js";

/** Two values of each key, as TOML: one for [defaults], another for a schedule's own. */
const EXAMPLES: Record<string, [string, string]> = {
  timezone: ['"Europe/Berlin"', '"Asia/Tokyo"'],
  overlap: ['"queue"', '"allow"'],
  timeout: ['"1h"', '"3h"'],
  catch_up: ['"all"', '"none"'],
  catch_up_window: ['"1h"', '"2h"'],
  alert: ['["a"]', '["a", "b"]'],
  pause_after_failures: ["2", "5"],
  budget: ["{ per_run = 1.5 }", "{ tokens_per_day = 2000 }"],
  retry: ['{ attempts = 2, delay = "1m" }', "{ attempts = 1 }"],
  deliver: [
    '{ pull_request = { forge = "github", token_env = "GH_TOKEN" } }',
    '{ pull_request = { forge = "gitlab", token_file = "/etc/t", labels = ["bot"] } }',
  ],
  source: [
    '{ github_issues = { repo = "octo/app" } }',
    '{ linear_issues = { team = "ENG", token_file = "/etc/linear" } }',
  ],
  fetch: ["true", "false"],
  fetch_remote: ['"upstream"', '"origin"'],
  fetch_base: ['"main"', '"release/2"'],
  preflight: ['"30m"', '"2h"'],
  jitter: ['"1m"', '"2m"'],
  after: ['["a"]', '["b"]'],
  env: ['{ A = "1" }', '{ B = "2" }'],
  enabled: ["false", "true"],
  history: ["0", "7"],
};

const CHANNELS = `[[channel]]\nname = "a"\ntype = "command"\ncommand = ["/bin/true"]\n
[[channel]]\nname = "b"\ntype = "command"\ncommand = ["/bin/true"]\n`;

const settings = Object.entries(SCHEDULE_KEYS).flatMap(([field, spec]) =>
  Object.keys(spec.keys).map((key) => ({ field, key, inheritable: spec.inheritable })),
);

function config(defaults: string) {
  return parseConfigText("autoloop-cron.toml", `${CHANNELS}[defaults]\n${defaults}\n`, "/srv");
}

/** The schedule one preset entry with `own` makes under [defaults] `defaults`. */
function schedule(defaults: string, own: string): Schedule {
  const parsed = config(defaults);
  expect(parsed.problems).toEqual([]);
  const text = `[[schedule]]\nname = "s"\ncron = "0 2 * * *"\npreset = "p"\nobjective = "o"\n${own}\n`;
  const file = parseScheduleFile("s.toml", text, scheduleDefaults(parsed.config!), {
    fileDir: "/srv/schedules",
    configDir: "/srv",
  });
  expect(file.problems).toEqual([]);
  return file.schedules[0]!;
}

describe("the schedule keys' table", () => {
  it("has example values for every key (a new key is tested here too)", () => {
    expect(settings.map((s) => s.key).sort()).toEqual(Object.keys(EXAMPLES).sort());
  });

  for (const { field, key, inheritable } of settings) {
    const [first, second] = EXAMPLES[key]!;
    const held = (s: Schedule) => (s as unknown as Record<string, unknown>)[field];
    if (inheritable) {
      it(`${key}: [defaults]' value is held by a schedule without its own, replaced by its own`, () => {
        const written = held(schedule("", `${key} = ${first}`));
        expect(held(schedule("", ""))).not.toEqual(written);
        expect(held(schedule(`${key} = ${first}`, ""))).toEqual(written);
        expect(held(schedule(`${key} = ${first}`, `${key} = ${second}`))).toEqual(
          held(schedule("", `${key} = ${second}`)),
        );
      });
      it(`${key}: a bad value is refused in the same words in [defaults] and in a schedule`, () => {
        const inDefaults = config(`${key} = -1`).problems;
        const text = `[[schedule]]\nname = "s"\ncron = "0 2 * * *"\npreset = "p"\nobjective = "o"\n${key} = -1\n`;
        const inSchedule = parseScheduleFile("s.toml", text, scheduleDefaults(config("").config!), {
          fileDir: "/srv",
          configDir: "/srv",
        }).problems;
        expect(inDefaults.length).toBeGreaterThan(0);
        expect(inDefaults.map((p) => [p.field.replace(/^defaults\./, ""), p.expected])).toEqual(
          inSchedule.map((p) => [p.field.replace(/^schedule\[0\]\./, ""), p.expected]),
        );
      });
    } else {
      it(`${key}: held from the schedule alone ([defaults] does not take it)`, () => {
        expect(held(schedule("", `${key} = ${first}`))).not.toEqual(held(schedule("", "")));
        expect(config(`${key} = ${first}`).problems.map((p) => p.field)).toEqual([
          `defaults.${key}`,
        ]);
      });
    }
  }
});
