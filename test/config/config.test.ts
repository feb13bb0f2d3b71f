import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  BUNDLED_HARNESS,
  defaultConfig,
  findConfig,
  loadConfig,
  parseConfigText,
} from "../../src/scheduler/config/config.js";
import { formatProblem, UserError, ValidationError } from "../../src/util/errors.js";

/** The formatted problems for a config text. */
function problems(text: string): string[] {
  return parseConfigText("autoloop-cron.toml", text, "/srv/cron").problems.map(formatProblem);
}

const FULL = `
state_dir = "state"
schedules_dir = "/etc/autoloop/schedules"
harness = ["./bin/autoloop", "--quiet"]
max_concurrent_runs = 2
on_shutdown = "detach"
shutdown_grace = "1m"
log_level = "debug"
heartbeat_url_env = "HC_URL"
heartbeat_interval = "2m"

[http]
listen = "[::1]:9000"

[defaults]
timezone = "Europe/Berlin"
overlap = "queue"
timeout = "1h30m"
alert = ["mail"]

[monitor]
journals = ["repos/*/.autoloop/journal.jsonl"]
gate_rejections = 5
stall_after = "10m"

[[channel]]
name = "mail"
type = "email"
smtp_url_env = "AUTOLOOP_CRON_SMTP_URL"
from = "autoloop-cron <cron@example.com>"
to = ["ops@example.com"]

[[channel]]
name = "hook"
type = "webhook"
url_file = "secrets/hook-url"
secret_env = "ALERT_WEBHOOK_SECRET"

[[channel]]
name = "pager"
type = "command"
command = ["/usr/local/bin/page-oncall"]
`;

describe("parseConfigText", () => {
  it("resolves a full config: absolute paths, durations in ms, secret references only", () => {
    const { config, problems: found } = parseConfigText("autoloop-cron.toml", FULL, "/srv/cron");
    expect(found).toEqual([]);
    expect(config).toMatchObject({
      dir: "/srv/cron",
      stateDir: "/srv/cron/state",
      schedulesDir: "/etc/autoloop/schedules",
      presetsDir: "/srv/cron/presets",
      harness: ["/srv/cron/bin/autoloop", "--quiet"],
      maxConcurrentRuns: 2,
      onShutdown: "detach",
      shutdownGraceMs: 60_000,
      logLevel: "debug",
      heartbeat: { url: { kind: "env", name: "HC_URL" }, intervalMs: 120_000 },
      http: { enabled: true, host: "::1", port: 9000 },
      defaults: {
        timezone: "Europe/Berlin",
        overlap: "queue",
        timeoutMs: 5_400_000,
        catchUp: { mode: "latest", windowMs: 21_600_000 },
        alert: ["mail"],
      },
      monitor: {
        journals: ["/srv/cron/repos/*/.autoloop/journal.jsonl"],
        gateRejections: 5,
        gateGraceMs: 1_800_000,
        stallAfterMs: 600_000,
        alert: ["mail", "hook", "pager"],
      },
    });
    expect(config?.channels).toEqual([
      {
        name: "mail",
        type: "email",
        smtpUrl: { kind: "env", name: "AUTOLOOP_CRON_SMTP_URL" },
        from: "autoloop-cron <cron@example.com>",
        to: ["ops@example.com"],
      },
      {
        name: "hook",
        type: "webhook",
        url: { kind: "file", path: "/srv/cron/secrets/hook-url" },
        secret: { kind: "env", name: "ALERT_WEBHOOK_SECRET" },
        format: "standard",
      },
      { name: "pager", type: "command", command: ["/usr/local/bin/page-oncall"] },
    ]);
  });

  it("hands an email channel without an SMTP url over as the embedded sink", () => {
    const text = '[[channel]]\nname = "mail"\ntype = "email"\nfrom = "a@x"\nto = ["b@x"]\n';
    expect(parseConfigText("c.toml", text, "/x").config?.channels).toEqual([
      { name: "mail", type: "sink" },
    ]);
  });

  it("applies every default to an empty file", () => {
    const config = defaultConfig("/srv/cron");
    expect(config).toMatchObject({
      file: undefined,
      stateDir: "/srv/cron/.autoloop-cron",
      schedulesDir: "/srv/cron/schedules",
      harness: BUNDLED_HARNESS,
      maxConcurrentRuns: 4,
      onShutdown: "terminate",
      shutdownGraceMs: 30_000,
      heartbeat: undefined,
      http: { enabled: true, host: "127.0.0.1", port: 9464 },
      defaults: { timezone: "UTC", overlap: "skip", timeoutMs: 7_200_000, alert: [] },
      monitor: { journals: [], gateRejections: 3, stallAfterMs: 1_200_000, alert: [] },
      channels: [],
    });
    expect(parseConfigText("c.toml", '[http]\nlisten = ""', "/x").config?.http).toEqual({
      enabled: false,
    });
  });

  it("suggests the nearest known key for a typo, and lists keys otherwise", () => {
    expect(problems('shedules_dir = "x"')).toEqual([
      'autoloop-cron.toml: shedules_dir: found unknown key "shedules_dir"; expected a known key (did you mean "schedules_dir"?)',
    ]);
    expect(problems("[monitor]\njournal = []")).toEqual([
      'autoloop-cron.toml: monitor.journal: found unknown key "journal"; expected a known key (did you mean "journals"?)',
    ]);
    expect(problems("[http]\nport = 1")).toEqual([
      'autoloop-cron.toml: http.port: found unknown key "port"; expected one of the known keys: listen, status_page, actions, hosts, public_url',
    ]);
  });

  it("takes the page's public address for links (http or https only)", () => {
    const config = (text: string) => parseConfigText("autoloop-cron.toml", text, "/srv").config;
    expect(config('[http]\npublic_url = "https://cron.example.com/x/"')?.publicUrl).toBe(
      "https://cron.example.com/x",
    );
    expect(problems('[http]\npublic_url = "ftp://cron.example.com"')).toEqual([
      expect.stringContaining("http.public_url"),
    ]);
  });

  it("serves the status page and its buttons by default only on a loopback address", () => {
    const http = (text: string) => parseConfigText("autoloop-cron.toml", text, "/srv").config!.http;
    expect(http("")).toMatchObject({
      enabled: true,
      host: "127.0.0.1",
      statusPage: true,
      actions: true,
    });
    expect(http('[http]\nlisten = "[::1]:9464"')).toMatchObject({ actions: true });
    expect(http('[http]\nlisten = "0.0.0.0:9464"')).toMatchObject({
      statusPage: false,
      actions: false,
    });
    expect(
      http('[http]\nlisten = "0.0.0.0:9464"\nstatus_page = true\nhosts = ["cron.example.com"]'),
    ).toMatchObject({ statusPage: true, actions: false, hosts: ["cron.example.com"] });
    expect(http('[http]\nlisten = "0.0.0.0:9464"\nactions = true')).toMatchObject({
      actions: true,
    });
    expect(http("[http]\nstatus_page = false")).toMatchObject({ statusPage: false });
    expect(http('[http]\nlisten = ""')).toEqual({ enabled: false });
  });

  it("rejects literal secrets without echoing them", () => {
    const text = `
[[channel]]
name = "mail"
type = "email"
smtp_url = "smtp://user:hunter2@mail.example.com:587"
from = "a@example.com"
to = ["b@example.com"]

[[channel]]
name = "hook"
type = "webhook"
url = "https://hooks.example.com/x"
secret = "whsec_c2VjcmV0"
`;
    const found = problems(text);
    expect(found).toEqual([
      "autoloop-cron.toml: channel[0].smtp_url: found a secret written into the file; expected smtp_url_env (the name of an environment variable holding it) or smtp_url_file (a file containing it)",
      "autoloop-cron.toml: channel[1].secret: found a secret written into the file; expected secret_env (the name of an environment variable holding it) or secret_file (a file containing it)",
    ]);
    expect(found.join("\n")).not.toMatch(/hunter2|whsec_/);
  });

  it("pins messages for bad values", () => {
    expect(
      problems('on_shutdown = "kill"\nshutdown_grace = "30 secs"\nmax_concurrent_runs = 0'),
    ).toEqual([
      "autoloop-cron.toml: max_concurrent_runs: found 0; expected at least 1",
      'autoloop-cron.toml: on_shutdown: found "kill"; expected one of "terminate", "detach"',
      'autoloop-cron.toml: shutdown_grace: found "30 secs"; expected a duration such as "90s", "20m", "2h", "1d" or "1h30m"',
    ]);
    expect(problems('[defaults]\ntimezone = "Europe/Berlinn"\noverlap = "skipp"')).toEqual([
      'autoloop-cron.toml: defaults.timezone: found "Europe/Berlinn"; expected an IANA time zone such as "UTC", "Europe/Berlin" or "America/New_York"',
      'autoloop-cron.toml: defaults.overlap: found "skipp"; expected one of "skip", "queue", "replace", "allow"',
    ]);
    expect(problems('[http]\nlisten = "localhost"')).toEqual([
      'autoloop-cron.toml: http.listen: found "localhost"; expected host:port such as "127.0.0.1:9464" or "[::1]:9464", or "" to disable',
    ]);
  });

  it("checks channels: type, path-safe unique names, references, alert lists", () => {
    expect(problems('[[channel]]\nname = "hook"\ntype = "webhok"')).toEqual([
      'autoloop-cron.toml: channel[0].type: found "webhok"; expected one of "email", "webhook", "command", "pagerduty", "opsgenie"',
    ]);
    expect(problems('[[channel]]\nname = "../x"\ntype = "command"\ncommand = []')).toEqual([
      'autoloop-cron.toml: channel[0].name: found "../x"; expected a name of letters, digits, "_" and "-", starting with a letter or digit, at most 63 characters',
      "autoloop-cron.toml: channel[0].command: found []; expected at least 1 item",
    ]);
    const twice = '[[channel]]\nname = "a"\ntype = "command"\ncommand = ["x"]\n';
    expect(problems(twice + twice)).toEqual([
      'autoloop-cron.toml: channel[1].name: found "a"; expected a name no other channel has (channel[0] has it)',
    ]);
    expect(
      problems('[[channel]]\nname = "h"\ntype = "webhook"\nurl_env = "A"\nurl_file = "f"'),
    ).toEqual([
      "autoloop-cron.toml: channel[0].url: found several references; expected only one of url_env, url_file",
    ]);
    expect(problems('[[channel]]\nname = "h"\ntype = "webhook"')).toEqual([
      "autoloop-cron.toml: channel[0].url: found nothing; expected url_env, url_file or url",
    ]);
    const mail = '[[channel]]\nname = "mail"\ntype = "email"\nfrom = "a"\nto = ["b"]\n';
    expect(problems(`[defaults]\nalert = ["mial"]\n[monitor]\nalert = ["pager"]\n${mail}`)).toEqual(
      [
        'autoloop-cron.toml: defaults.alert[0]: found "mial"; expected the name of a [[channel]] (did you mean "mail"?)',
        'autoloop-cron.toml: monitor.alert[0]: found "pager"; expected the name of a [[channel]] (one of: mail)',
      ],
    );
  });

  it("names line and column of a TOML syntax error", () => {
    expect(problems('state_dir = "x"\nschedules_dir = \n')).toEqual([
      "autoloop-cron.toml: line 2, column 17: found invalid TOML (invalid value); expected valid TOML syntax",
    ]);
  });
});

describe("loadConfig and findConfig", () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), "autoloop-cron-config-"));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it("names the path of a missing explicit config", () => {
    expect(() => findConfig("missing.toml", dir)).toThrow(UserError);
    expect(() => findConfig("missing.toml", dir)).toThrow(
      `missing.toml: config file not found (looked at ${join(dir, "missing.toml")}); create it or pass --config FILE`,
    );
  });

  it("looks for --config, then AUTOLOOP_CRON_CONFIG, then ./autoloop-cron.toml, else refuses", () => {
    expect(() => findConfig(undefined, dir, {})).toThrow(
      `no config: no --config given, AUTOLOOP_CRON_CONFIG is not set and there is no autoloop-cron.toml in ${dir}; pass --config /etc/autoloop-cron/autoloop-cron.toml (or set AUTOLOOP_CRON_CONFIG), or run where autoloop-cron.toml is`,
    );
    writeFileSync(join(dir, "autoloop-cron.toml"), 'schedules_dir = "jobs"\n');
    const config = findConfig(undefined, dir, {});
    expect(config.schedulesDir).toBe(join(dir, "jobs"));
    expect(config.file).toBe(join(dir, "autoloop-cron.toml"));
    mkdirSync(join(dir, "etc"));
    writeFileSync(join(dir, "etc", "service.toml"), 'schedules_dir = "svc"\n');
    const env = { AUTOLOOP_CRON_CONFIG: join(dir, "etc", "service.toml") };
    expect(findConfig(undefined, dir, env).schedulesDir).toBe(join(dir, "etc", "svc"));
    expect(findConfig("autoloop-cron.toml", dir, env).schedulesDir).toBe(join(dir, "jobs"));
  });

  it("resolves relative paths against the config file's folder and throws ValidationError", () => {
    mkdirSync(join(dir, "etc"));
    writeFileSync(join(dir, "etc", "c.toml"), 'state_dir = "st"\n');
    expect(loadConfig("etc/c.toml", dir).stateDir).toBe(join(dir, "etc", "st"));
    writeFileSync(join(dir, "etc", "bad.toml"), "log_level = 3\n");
    expect(() => loadConfig("etc/bad.toml", dir)).toThrow(ValidationError);
    expect(() => loadConfig("etc/bad.toml", dir)).toThrow(
      'etc/bad.toml: log_level: found 3; expected one of "trace", "debug", "info", "warn", "error", "fatal", "silent"',
    );
  });
});

describe("bundled locations", () => {
  it("points the default harness at the built autoloop CLI in the repository", () => {
    expect(BUNDLED_HARNESS).toEqual([
      process.execPath,
      fileURLToPath(new URL("../../dist/bin/autoloop.cjs", import.meta.url)),
    ]);
  });
});
