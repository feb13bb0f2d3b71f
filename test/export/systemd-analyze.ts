// Test helper: systemd-analyze (verify, calendar) run as a real process. Missing, the tests
// that need it skip with a message, except in CI (CI set), where .ci/run installs it.
import { accessSync, constants } from "node:fs";
import { delimiter, join } from "node:path";
import { execa } from "execa";

function locate(): string | undefined {
  for (const dir of (process.env.PATH ?? "").split(delimiter)) {
    const path = join(dir, "systemd-analyze");
    try {
      accessSync(path, constants.X_OK);
      return path;
    } catch {}
  }
  return undefined;
}

export const SYSTEMD_ANALYZE = locate();

/** True when the systemd tests should skip: no systemd-analyze here, and not in CI. */
export const skipSystemd = SYSTEMD_ANALYZE === undefined && !process.env.CI;
if (skipSystemd) {
  console.warn(
    "skipping the systemd-analyze tests: systemd-analyze is not installed (apt-get install systemd)",
  );
}

async function run(args: string[], extraEnv: Record<string, string> = {}) {
  if (SYSTEMD_ANALYZE === undefined) {
    throw new Error(
      "systemd-analyze is missing, and CI is set so its tests must run: install systemd",
    );
  }
  // TZ=UTC: calendar prints instants in the local zone; UTC makes them easy to parse.
  return execa(SYSTEMD_ANALYZE, args, {
    reject: false,
    env: { TZ: "UTC", SYSTEMD_LOG_LEVEL: "notice", SYSTEMD_PAGER: "", LC_ALL: "C", ...extraEnv },
  });
}

/**
 * `systemd-analyze verify` on unit files; the stderr lists every complaint, even the ones it
 * ignores (unknown keys, bad values), so callers expect it empty. User units need a runtime
 * folder (`userRuntimeDir`), as a user manager would have.
 */
export async function verifyUnits(
  paths: string[],
  userRuntimeDir?: string,
): Promise<{ exitCode: number; stderr: string }> {
  const mode = userRuntimeDir === undefined ? [] : ["--user"];
  const env: Record<string, string> =
    userRuntimeDir === undefined ? {} : { XDG_RUNTIME_DIR: userRuntimeDir, HOME: userRuntimeDir };
  const r = await run([...mode, "verify", "--man=no", "--generators=no", ...paths], env);
  return { exitCode: r.exitCode ?? -1, stderr: r.stderr.trim() };
}

const ELAPSE = /^\s*(?:Next elapse|Iter\. #\d+): \w{3} (\d{4}-\d\d-\d\d) (\d\d:\d\d:\d\d) UTC$/;

/** The next `n` instants of an OnCalendar spec strictly after `base`, as systemd computes them. */
export async function calendarInstants(spec: string, base: Date, n: number): Promise<Date[]> {
  const seconds = Math.floor(base.getTime() / 1000);
  const r = await run(["calendar", `--iterations=${n}`, `--base-time=@${seconds}`, spec]);
  if (r.exitCode !== 0) {
    throw new Error(`systemd-analyze calendar ${spec}: ${r.stderr} (zone files come from tzdata)`);
  }
  return r.stdout
    .split("\n")
    .map((line) => ELAPSE.exec(line))
    .filter((m) => m !== null)
    .map((m) => new Date(`${m[1]}T${m[2]}Z`));
}
