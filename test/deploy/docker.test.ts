import { execFileSync } from "node:child_process";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { join, posix } from "node:path";
import { execa } from "execa";
import { afterEach, describe, expect, it } from "vitest";
import { parse } from "yaml";
import { parseConfigText } from "../../src/scheduler/config/config.js";
import { AUTOLOOP_CRON, cleanEnv, cleanupTempDirs, ROOT, tempDir } from "../helpers/cli.js";

interface Instruction {
  op: string;
  args: string;
}

/** Dockerfile instructions: continuation lines joined, comments and blank lines dropped. */
function instructions(text: string): Instruction[] {
  const joined = text.replace(/\\\n/g, " ");
  return joined
    .split("\n")
    .map((l) => l.trim())
    .filter((l) => l !== "" && !l.startsWith("#"))
    .map((l) => {
      const [op, ...rest] = l.split(/\s+/);
      return { op: op!.toUpperCase(), args: rest.join(" ") };
    });
}

const DOCKER = join(ROOT, "deploy/docker");
const all = instructions(readFileSync(join(DOCKER, "Dockerfile"), "utf8"));
const stageStart = all.findLastIndex((i) => i.op === "FROM");
const build = all.slice(0, stageStart);
const runtime = all.slice(stageStart);
const args = (list: Instruction[], op: string) =>
  list.filter((i) => i.op === op).map((i) => i.args);

describe("deploy/docker/Dockerfile", () => {
  it("builds in one stage and runs in another, both on node:20-bookworm-slim", () => {
    expect(args(all, "FROM")).toEqual(["node:20-bookworm-slim AS build", "node:20-bookworm-slim"]);
    const run = args(build, "RUN").join(" && ");
    for (const step of ["npm ci", "npm run build", "npm prune --omit=dev"])
      expect(run).toContain(step);
    expect(args(runtime, "COPY").filter((a) => a.startsWith("--from=build"))).not.toEqual([]);
  });

  it("runs as a non-root user under tini, with state on a volume", () => {
    const users = args(runtime, "USER");
    expect(users).toHaveLength(1);
    expect(users[0]).not.toMatch(/^(root|0)(:|$)/);
    expect(args(runtime, "RUN").join(" ")).toContain(`useradd --system --uid 10001`);
    expect(args(runtime, "RUN").join(" ")).toMatch(/apt-get install .*\btini\b/);
    expect(args(runtime, "ENTRYPOINT")).toEqual([
      '["/usr/bin/tini", "--", "/bin/sh", "-c", "umask 077 && exec \\"$@\\"", "sh"]',
    ]);
    // The entrypoint's shell, run as written: the umask holds and the command is exec'd.
    const entry = JSON.parse(args(runtime, "ENTRYPOINT")[0]!) as string[];
    const shell = execFileSync(entry[2]!, [...entry.slice(3), "sh", "-c", "umask"], {
      encoding: "utf8",
    });
    expect(shell.trim()).toBe("0077");
    expect(args(runtime, "VOLUME")).toEqual(["/var/lib/autoloop-cron"]);
    expect(JSON.parse(args(runtime, "CMD")[0]!)).toEqual([
      "autoloop-cron",
      "start",
      "--config",
      "/etc/autoloop-cron/autoloop-cron.toml",
    ]);
  });

  it("copies only files that exist, and bakes a valid default config", () => {
    for (const a of args(all, "COPY").filter((c) => !c.startsWith("--from"))) {
      for (const src of a.split(/\s+/).slice(0, -1))
        expect(existsSync(join(ROOT, src)), src).toBe(true);
    }
    const text = readFileSync(join(DOCKER, "autoloop-cron.toml"), "utf8");
    const { config } = parseConfigText("autoloop-cron.toml", text, "/etc/autoloop-cron");
    expect(config?.stateDir).toBe("/var/lib/autoloop-cron/state");
    // Served to other machines: /healthz and /metrics only, unless the page is asked for.
    expect(config?.http).toEqual({
      enabled: true,
      host: "0.0.0.0",
      port: 9464,
      statusPage: false,
      actions: false,
      hosts: [],
    });
  });

  describe("HEALTHCHECK", () => {
    const [check] = args(runtime, "HEALTHCHECK");
    const argv = JSON.parse(check!.slice(check!.indexOf("CMD") + 3)) as string[];
    let server: Server | undefined;
    afterEach(() => {
      server?.close();
      cleanupTempDirs();
    });

    /** Runs the check against a local server answering `status` (none: no server), with the
     * image's own config file pointed at that server's port. */
    async function probe(status: number | undefined): Promise<number> {
      let port = 1; // nothing listens on port 1
      if (status !== undefined) {
        server = createServer((_, res) => res.writeHead(status).end());
        await new Promise<void>((done) => server!.listen(0, "127.0.0.1", done));
        port = (server.address() as AddressInfo).port;
      }
      const dir = tempDir("autoloop-docker-health-");
      const baked = readFileSync(join(DOCKER, "autoloop-cron.toml"), "utf8")
        .replace('"0.0.0.0:9464"', `"0.0.0.0:${port}"`)
        .replace('"/var/lib/autoloop-cron/state"', JSON.stringify(join(dir, "state")));
      writeFileSync(join(dir, "autoloop-cron.toml"), baked);
      const configArg = argv.indexOf("--config");
      const local = [...argv.slice(1, configArg + 1), join(dir, "autoloop-cron.toml")];
      const r = await execa(process.execPath, [AUTOLOOP_CRON, ...local], {
        reject: false,
        env: cleanEnv(),
        extendEnv: false,
      });
      return r.exitCode ?? -1;
    }

    it("runs `autoloop-cron health` on the image's config, whatever port it listens on", () => {
      expect(argv).toEqual([
        "autoloop-cron",
        "health",
        "--config",
        "/etc/autoloop-cron/autoloop-cron.toml",
      ]);
    });

    it("passes on 200 and fails on 503 or no answer", async () => {
      expect(await probe(200)).toBe(0);
      server?.close();
      expect(await probe(503)).toBe(1);
      server?.close();
      server = undefined;
      expect(await probe(undefined)).toBe(1);
    });
  });
});

describe("deploy/docker/compose.yaml", () => {
  const compose = parse(readFileSync(join(DOCKER, "compose.yaml"), "utf8"));
  const service = compose.services["autoloop-cron"];

  it("builds the Dockerfile from the repository root", () => {
    expect(existsSync(join(DOCKER, service.build.context, service.build.dockerfile))).toBe(true);
  });

  it("runs the bundled demo: its schedules' project_dir is a writable volume in the container", () => {
    const mounts = service.volumes as string[];
    const schedules = mounts.find((m) => m.endsWith(":/etc/autoloop-cron/schedules:ro"));
    expect(schedules).toBe("../../schedules:/etc/autoloop-cron/schedules:ro");
    const text = readFileSync(join(ROOT, "schedules", "demo.toml"), "utf8");
    const dirs = [...text.matchAll(/^project_dir = "(.+)"$/gm)].map((m) =>
      posix.resolve("/etc/autoloop-cron/schedules", m[1]!),
    );
    expect(new Set(dirs)).toEqual(new Set(["/etc/autoloop-cron/demo"]));
    expect(mounts).toContain("demo:/etc/autoloop-cron/demo");
    expect(Object.keys(compose.volumes)).toContain("demo");
    // The image creates the folder for the service user, so the named volume is its too.
    expect(readFileSync(join(DOCKER, "Dockerfile"), "utf8")).toContain(
      "install -d -o autoloop-cron -g autoloop-cron -m 0750 /etc/autoloop-cron/demo",
    );
  });

  it("keeps state on a named volume and secrets in an env file", () => {
    expect(service.volumes).toContain("state:/var/lib/autoloop-cron");
    expect(Object.keys(compose.volumes)).toContain("state");
    expect(service.env_file).toEqual([{ path: "./env", required: false }]);
  });

  it("publishes ports on loopback only and waits 90 s to stop", () => {
    expect(service.ports.length).toBeGreaterThan(0);
    for (const p of service.ports) expect(String(p)).toMatch(/^127\.0\.0\.1:/);
    expect(service.stop_grace_period).toBe("90s");
  });

  it("has a .dockerignore that keeps node_modules, dist and .git out", () => {
    const ignore = readFileSync(join(ROOT, ".dockerignore"), "utf8").split("\n");
    for (const entry of ["node_modules", "dist", ".git"]) expect(ignore).toContain(entry);
  });
});
