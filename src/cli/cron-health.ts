// `autoloop-cron health`: the container's (or any supervisor's) liveness probe, from the
// config's own [http] listen address, so the check follows the config instead of a port
// written into the Dockerfile.
import { request } from "node:http";
import type { CronConfig } from "../scheduler/config/config.js";
import { runningDaemon } from "../scheduler/daemon/control.js";
import { UserError } from "../util/errors.js";
import { str } from "./common.js";
import { configOf, parseCron } from "./cron-common.js";

const HELP = `Usage: autoloop-cron health [--config FILE] [--timeout 5s]

Exits 0 when the daemon is healthy, 1 (saying why) when not. With [http] listen set, asks the
daemon's /healthz at that address (0.0.0.0 and :: mean this host); with listen = "", checks
that a daemon process is running on the config's state_dir. For Docker's HEALTHCHECK and
Kubernetes' exec probes:

  HEALTHCHECK CMD ["autoloop-cron", "health", "--config", "/etc/autoloop-cron/autoloop-cron.toml"]
`;

/** The address to ask: a wildcard listen address is reached on loopback. */
export function probeHost(host: string): string {
  if (host === "0.0.0.0" || host === "") return "127.0.0.1";
  if (host === "::" || host === "[::]") return "::1";
  return host;
}

function getHealth(host: string, port: number, timeoutMs: number): Promise<string | undefined> {
  return new Promise((resolve) => {
    const req = request(
      { host: probeHost(host), port, path: "/healthz", method: "GET", timeout: timeoutMs },
      (res) => {
        let body = "";
        res.setEncoding("utf8");
        res.on("data", (c: string) => {
          body += c;
        });
        res.on("end", () =>
          resolve(res.statusCode === 200 ? undefined : `HTTP ${res.statusCode}: ${body.trim()}`),
        );
      },
    );
    req.on("timeout", () => req.destroy(new Error(`no answer within ${timeoutMs} ms`)));
    req.on("error", (err) =>
      resolve(`cannot reach http://${probeHost(host)}:${port}/healthz: ${err.message}`),
    );
    req.end();
  });
}

/** Why the daemon of `config` is unhealthy, or undefined when it is fine. */
export async function healthProblem(
  config: CronConfig,
  timeoutMs: number,
): Promise<string | undefined> {
  if (config.http.enabled) return getHealth(config.http.host, config.http.port, timeoutMs);
  return runningDaemon(config.stateDir) === undefined
    ? `no autoloop-cron daemon is running on ${config.stateDir}`
    : undefined;
}

export async function healthCommand(argv: string[]): Promise<number> {
  const p = parseCron(argv, {
    name: "health",
    help: HELP,
    options: { timeout: { type: "string" } },
  });
  if (p === undefined) return 0;
  if (p.positionals.length > 0)
    throw new UserError(`autoloop-cron health: unexpected ${JSON.stringify(p.positionals[0])}`);
  const { parseDuration } = await import("../util/duration.js");
  const timeoutText = str(p, "timeout") ?? "5s";
  const timeoutMs = parseDuration(timeoutText);
  if (timeoutMs === undefined)
    throw new UserError(
      `autoloop-cron health: --timeout ${JSON.stringify(timeoutText)} is not a duration such as 5s`,
    );
  const problem = await healthProblem(configOf(p), timeoutMs);
  if (problem === undefined) {
    process.stdout.write("healthy\n");
    return 0;
  }
  process.stderr.write(`unhealthy: ${problem}\n`);
  return 1;
}
