// `autoloop-cron health`: the liveness probe the container's HEALTHCHECK runs, from the
// config's own listen address, or the daemon process when the endpoint is off.
import { writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { join } from "node:path";
import { execa } from "execa";
import { afterEach, describe, expect, it } from "vitest";
import { AUTOLOOP_CRON, cleanEnv, cleanupTempDirs, tempDir } from "../helpers/cli.js";
import { waitFor } from "../helpers/wait.js";

afterEach(cleanupTempDirs);

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const server = createServer();
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

const cli = (config: string, ...args: string[]) =>
  execa(process.execPath, [AUTOLOOP_CRON, ...args, "--config", config], {
    env: cleanEnv(),
    extendEnv: false,
    reject: false,
  });

describe("autoloop-cron health", () => {
  it.each([
    ["on a port of the config's choosing", true],
    ['with listen = ""', false],
  ])(
    "follows the daemon %s",
    async (_, http) => {
      const dir = tempDir("autoloop-health-");
      const port = await freePort();
      const listen = http ? `0.0.0.0:${port}` : "";
      const config = join(dir, "autoloop-cron.toml");
      writeFileSync(config, `state_dir = "state"\n[http]\nlisten = "${listen}"\n`);
      const down = await cli(config, "health");
      expect(down.exitCode).toBe(1);
      expect(down.stderr).toMatch(
        http
          ? `cannot reach http://127.0.0.1:${port}/healthz`
          : "no autoloop-cron daemon is running",
      );
      const daemon = execa(process.execPath, [AUTOLOOP_CRON, "start", "--config", config], {
        env: cleanEnv(),
        extendEnv: false,
        reject: false,
      });
      try {
        const up = await waitFor(
          async () => {
            const r = await cli(config, "health");
            return r.exitCode === 0 ? r : undefined;
          },
          "a healthy daemon",
          20_000,
          200,
        );
        expect(up.stdout).toBe("healthy");
      } finally {
        daemon.kill("SIGTERM");
        await daemon;
      }
    },
    40_000,
  );
});
