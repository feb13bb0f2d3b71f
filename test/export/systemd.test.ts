import { chmodSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { defaultConfig } from "../../src/scheduler/config/config.js";
import { HARDENING } from "../../src/scheduler/export/systemd-hardening.js";
import { monitorUnit, serviceUnit } from "../../src/scheduler/export/systemd-units.js";
import {
  parseScheduleFile,
  type Schedule,
  scheduleDefaults,
} from "../../src/scheduler/schedules/schedule-file.js";
import { cleanupTempDirs, tempDir } from "../helpers/cli.js";
import { configDir, runExport, scheduleToml } from "./config-fixture.js";
import { skipSystemd, verifyUnits } from "./systemd-analyze.js";

afterEach(cleanupTempDirs);

const CONFIG = '[defaults]\ntimezone = "America/New_York"\n';

function fixture() {
  return configDir(CONFIG, {
    "main.toml": [
      { name: "nightly", cron: "0 2 * * *", extra: 'timeout = "45m"\njitter = "90s"' },
      {
        name: "workdays",
        cron: "*/15 9-17 * * 1-5",
        extra: 'catch_up = "none"\ntimezone = "Europe/Berlin"',
      },
    ],
  });
}

const unitFiles = (dir: string) => readdirSync(dir).sort();
const read = (dir: string, name: string) => readFileSync(join(dir, name), "utf8");

describe("export systemd", () => {
  it("prints each unit after a file marker", async () => {
    const r = await runExport(["systemd"], fixture());
    expect(r.code).toBe(0);
    expect(r.stdout.match(/^# ---- file: .+ ----$/gm)).toEqual([
      "# ---- file: autoloop-cron-nightly.service ----",
      "# ---- file: autoloop-cron-nightly.timer ----",
      "# ---- file: autoloop-cron-workdays.service ----",
      "# ---- file: autoloop-cron-workdays.timer ----",
      "# ---- file: autoloop-cron-monitor.service ----",
    ]);
  });

  it("writes a service and a timer per schedule that translate the schedule", async () => {
    const dir = fixture();
    const r = await runExport(["systemd", "--out", "units"], dir);
    expect(r.code).toBe(0);
    const out = join(dir, "units");
    expect(unitFiles(out)).toEqual([
      "autoloop-cron-monitor.service",
      "autoloop-cron-nightly.service",
      "autoloop-cron-nightly.timer",
      "autoloop-cron-workdays.service",
      "autoloop-cron-workdays.timer",
    ]);
    // Timers replace the scheduler, not the monitor: alerts need this service too.
    const monitor = read(out, "autoloop-cron-monitor.service");
    expect(monitor).toContain(
      `ExecStart=${process.execPath} ${join(process.cwd(), "dist/bin/autoloop-cron.js")} monitor --config ${join(dir, "autoloop-cron.toml")}\n`,
    );
    for (const line of ["Type=simple", "Restart=on-failure", "MemoryMax=4G", "TasksMax=1024"])
      expect(monitor.split("\n")).toContain(line);
    const service = read(out, "autoloop-cron-nightly.service");
    expect(service).toContain(
      `ExecStart=${process.execPath} ${join(process.cwd(), "dist/bin/autoloop-cron.js")} fire --foreground nightly --config ${join(dir, "autoloop-cron.toml")}\n`,
    );
    for (const line of [
      "Type=oneshot",
      "User=autoloop-cron",
      "TimeoutStartSec=2760s",
      "KillMode=mixed",
      "TimeoutStopSec=90s",
      `WorkingDirectory=${dir}`,
      ...HARDENING,
    ]) {
      expect(service.split("\n")).toContain(line);
    }
    expect(service).toContain(`ReadWritePaths=-${join(dir, ".autoloop-cron")} -${dir}\n`);
    const timer = read(out, "autoloop-cron-nightly.timer");
    for (const line of [
      "OnCalendar=*-*-* 02:00:00 America/New_York",
      "Persistent=true",
      "RandomizedDelaySec=90s",
      "FixedRandomDelay=true",
      "AccuracySec=1s",
      "Unit=autoloop-cron-nightly.service",
      "WantedBy=timers.target",
    ]) {
      expect(timer.split("\n")).toContain(line);
    }
    const workdays = read(out, "autoloop-cron-workdays.timer");
    expect(workdays).toContain("OnCalendar=Mon..Fri *-*-* 09..17:00/15:00 Europe/Berlin\n");
    expect(workdays).toContain("Persistent=false\n");
    expect(workdays).not.toContain("RandomizedDelaySec");
    expect(workdays).toContain("# At a spring-forward DST change systemd skips wall times");
  });

  it("writes user units without the system sandbox", async () => {
    const dir = fixture();
    await runExport(["systemd", "--user", "--out", "units"], dir);
    const service = read(join(dir, "units"), "autoloop-cron-nightly.service");
    expect(service).toContain("EnvironmentFile=-%h/.config/autoloop-cron/env\n");
    expect(service).not.toContain("User=");
    expect(service).not.toContain("ProtectSystem=");
  });

  it("refuses cron's day-of-month OR day-of-week, naming the schedule", async () => {
    const dir = configDir(CONFIG, { "a.toml": [{ name: "first-or-monday", cron: "0 9 1 * 1" }] });
    await expect(runExport(["systemd"], dir)).rejects.toThrow(
      'schedules/a.toml: schedule "first-or-monday": cron "0 9 1 * 1" cannot be exported to systemd OnCalendar: day-of-month "1" and day-of-week "1" are both restricted',
    );
  });
});

describe("service units", () => {
  const schedule = (extra: string, configDirPath: string) => {
    const config = defaultConfig(configDirPath);
    const text = scheduleToml({ name: "odd", cron: "0 2 * * *", extra });
    return parseScheduleFile("s.toml", text, scheduleDefaults(config), {
      fileDir: configDirPath,
      configDir: configDirPath,
    }).schedules[0]!;
  };
  const options = (o: Partial<Parameters<typeof serviceUnit>[1]> = {}) => ({
    user: false,
    node: process.execPath,
    entry: "/opt/autoloop cron/cli.js",
    configFile: "/etc/autoloop-cron/a%b.toml",
    configDir: "/etc/autoloop-cron",
    stateDir: "/var/lib/autoloop-cron",
    ...o,
  });

  it("quotes arguments with blanks and escapes % and $", () => {
    const text = serviceUnit(
      schedule("", "/srv/x"),
      options({ entry: "/opt/auto$loop cron/cli.js" }),
    ).text;
    expect(text).toContain(
      `ExecStart=${process.execPath} "/opt/auto$$loop cron/cli.js" fire --foreground odd --config /etc/autoloop-cron/a%%b.toml\n`,
    );
  });

  it("keeps homes read-only, not hidden, when a path lives in one", () => {
    expect(
      serviceUnit(schedule('project_dir = "/home/me/repo"', "/srv/x"), options()).text,
    ).toContain("ProtectHome=read-only\n");
    expect(serviceUnit(schedule("", "/srv/x"), options()).text).toContain("ProtectHome=yes\n");
  });

  it("keeps homes readable for the monitor when it checks a login in a project there", () => {
    const inHome = schedule('project_dir = "/home/me/repo"', "/srv/x");
    const checked = { ...inHome, kind: "preset", preflightMs: 1_800_000 } as unknown as Schedule;
    expect(monitorUnit(options(), [inHome]).text).toContain("ProtectHome=yes\n");
    expect(monitorUnit(options(), [checked]).text).toContain("ProtectHome=read-only\n");
  });
});

describe.skipIf(skipSystemd)("systemd-analyze verify on generated units", () => {
  it("accepts system units", async () => {
    const dir = fixture();
    await runExport(["systemd", "--out", "units"], dir);
    const out = join(dir, "units");
    const result = await verifyUnits(unitFiles(out).map((f) => join(out, f)));
    expect(result).toEqual({ exitCode: 0, stderr: "" });
  });

  it("accepts a command line with blanks, % and $", async () => {
    const dir = tempDir("autoloop-units-");
    const config = defaultConfig(dir);
    const text = scheduleToml({ name: "odd", cron: "0 2 * * *" });
    const s = parseScheduleFile("s.toml", text, scheduleDefaults(config), {
      fileDir: dir,
      configDir: dir,
    }).schedules[0]!;
    const unit = serviceUnit(s, {
      user: false,
      node: process.execPath,
      entry: "/opt/auto$loop cron/cli.js",
      configFile: `${dir}/a%b c.toml`,
      configDir: dir,
      stateDir: `${dir}/state dir`,
    });
    writeFileSync(join(dir, unit.name), unit.text);
    expect(await verifyUnits([join(dir, unit.name)])).toEqual({ exitCode: 0, stderr: "" });
  });

  it("accepts user units", async () => {
    const dir = fixture();
    await runExport(["systemd", "--user", "--out", "units"], dir);
    const out = join(dir, "units");
    const runtime = tempDir("autoloop-runtime-");
    chmodSync(runtime, 0o700);
    mkdirSync(join(runtime, ".config"), { recursive: true });
    const result = await verifyUnits(
      unitFiles(out).map((f) => join(out, f)),
      runtime,
    );
    expect(result).toEqual({ exitCode: 0, stderr: "" });
  });
});
