import { afterEach, describe, expect, it } from "vitest";
import { EXPORT_HELP } from "../../src/cli/cron-export.js";
import { cleanupTempDirs, tempDir } from "../helpers/cli.js";
import { configDir, runExport } from "./config-fixture.js";

afterEach(cleanupTempDirs);

const fixture = () => configDir("", { "a.toml": [{ name: "a", cron: "0 2 * * *" }] });

describe("exportCommand arguments", () => {
  it("prints help", async () => {
    const r = await runExport(["--help"], fixture());
    expect(r).toEqual({ code: 0, stdout: EXPORT_HELP, stderr: "" });
    expect(EXPORT_HELP).toContain("autoloop-cron export kubernetes [--image IMG] [--namespace NS]");
  });

  it.each([
    [[], "autoloop-cron export: found no target; expected kubernetes or systemd; see --help"],
    [["helm"], 'autoloop-cron export: found "helm"; expected kubernetes or systemd; see --help'],
    [
      ["systemd", "--image", "x"],
      "autoloop-cron export systemd: --image applies to kubernetes only",
    ],
    [["kubernetes", "--user"], "autoloop-cron export kubernetes: --user applies to systemd only"],
    [["systemd", "--bogus"], "autoloop-cron export: Unknown option '--bogus'"],
    [
      ["kubernetes", "--storage", "lots"],
      'autoloop-cron export kubernetes: --storage "lots" is not a size such as 10Gi or 500Mi',
    ],
    [
      ["kubernetes", "--namespace", "Agents"],
      'autoloop-cron export kubernetes: --namespace "Agents" is not a valid namespace',
    ],
  ])("rejects %j", async (argv, message) => {
    await expect(runExport(argv, fixture())).rejects.toThrow(message);
  });

  it("needs a config file", async () => {
    await expect(runExport(["systemd"], tempDir())).rejects.toThrow(
      "no config: no --config given, AUTOLOOP_CRON_CONFIG is not set and there is no autoloop-cron.toml in",
    );
  });

  it("refuses to export while a schedule file has problems", async () => {
    const dir = configDir("", { "a.toml": [{ name: "a", cron: "61 * * * *" }] });
    await expect(runExport(["systemd"], dir)).rejects.toThrow(
      'cannot export while schedule files have problems:\nschedules/a.toml: schedule[0].cron: found "61 * * * *"',
    );
  });

  it("takes --config relative to the working directory", async () => {
    const dir = fixture();
    const r = await runExport(["systemd", "--config", `${dir}/autoloop-cron.toml`], tempDir());
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("autoloop-cron-a.timer");
  });
});

describe("export systemd of folders under /tmp", () => {
  it("warns that PrivateTmp=yes hides them from the units", async () => {
    const dir = fixture(); // a temp dir: the config folder and project_dir are under /tmp
    const r = await runExport(["systemd"], dir);
    expect(r.code).toBe(0);
    expect(r.stderr).toContain(
      `the config folder ${dir} (every unit's WorkingDirectory) is under /tmp`,
    );
    expect(r.stderr).toContain('schedule "a": project_dir');
    expect(r.stderr).toContain("remove PrivateTmp=yes from autoloop-cron-a.service");
  });
});
