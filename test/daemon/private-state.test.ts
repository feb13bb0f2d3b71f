// The scheduler's and monitor's state is private whatever the umask: files 0600, folders 0700.
import { mkdirSync, readdirSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { execa } from "execa";
import { afterEach, describe, expect, it } from "vitest";
import { AUTOLOOP_CRON, cleanEnv, cleanupTempDirs, tempDir } from "../helpers/cli.js";

afterEach(cleanupTempDirs);

function modes(dir: string, out: Record<string, string> = {}, base = dir): Record<string, string> {
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    const st = statSync(path);
    out[path.slice(base.length + 1) + (st.isDirectory() ? "/" : "")] = (st.mode & 0o777).toString(
      8,
    );
    if (st.isDirectory()) modes(path, out, base);
  }
  return out;
}

describe("state files under a permissive umask", () => {
  it("are created 0600 in 0700 folders: ledger, output, outbox, incidents, mail", async () => {
    const root = tempDir("autoloop-private-");
    mkdirSync(join(root, "schedules"));
    mkdirSync(join(root, "work"));
    const config = join(root, "autoloop-cron.toml");
    writeFileSync(config, 'state_dir = "state"\n[http]\nlisten = ""\n');
    writeFileSync(
      join(root, "schedules", "s.toml"),
      `[[schedule]]\nname = "broken"\ncron = "0 3 * * *"\nkind = "command"\ncommand = [${JSON.stringify(process.execPath)}, "-e", "console.log('secret output'); process.exit(3)"]\nproject_dir = "../work"\n`,
    );
    // umask 000: every bit a file asks for is granted; the modes must come from us.
    const cron = (...args: string[]) =>
      execa(
        "/bin/sh",
        [
          "-c",
          'umask 000; exec "$@"',
          "sh",
          process.execPath,
          AUTOLOOP_CRON,
          ...args,
          "--config",
          config,
        ],
        {
          env: cleanEnv(),
          extendEnv: false,
          reject: false,
        },
      );
    expect((await cron("monitor", "--once")).exitCode).toBe(0);
    expect((await cron("fire", "broken", "--foreground")).exitCode).toBe(1);
    const once = await cron("monitor", "--once");
    expect(once.stdout).toMatch(/firing\s+run_failed/);
    expect((statSync(join(root, "state")).mode & 0o777).toString(8)).toBe("700");
    const found = modes(join(root, "state"));
    for (const kind of ["runs/", "output/", "incidents/", "mail/", "monitor/"])
      expect(Object.keys(found)).toContain(kind);
    expect(Object.keys(found).some((p) => p.startsWith("outbox"))).toBe(true);
    const wrong = Object.entries(found).filter(([p, m]) => m !== (p.endsWith("/") ? "700" : "600"));
    expect(wrong).toEqual([]);
  }, 60_000);
});
