#!/usr/bin/env node
// The Dockerfile's own steps, run natively (no Docker engine here or in CI): every COPY, WORKDIR
// and build-stage RUN exactly as written, with "/" mapped to a temp root; runtime-stage RUN lines
// that need root (apt-get, useradd) are listed, not run, and their effects (the folders, the
// symlinks) emulated. Then the image's CMD, with its ENTRYPOINT's umask, starts the daemon on
// the baked config and the HEALTHCHECK command must pass. Run by .ci/run, so the Dockerfile
// cannot drift from what works.
import { execFileSync, spawn } from "node:child_process";
import {
  cpSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";

const repo = resolve(dirname(new URL(import.meta.url).pathname), "..");
const root = mkdtempSync(join(tmpdir(), "autoloop-dockerfile-"));
const inRoot = (p) => join(root, p);
const say = (m) => process.stdout.write(`dockerfile: ${m}\n`);

// Logical lines: continuations joined, comments and blanks dropped.
const lines = readFileSync(join(repo, "deploy/docker/Dockerfile"), "utf8")
  .replace(/\\\n/g, " ")
  .split("\n")
  .map((l) => l.trim())
  .filter((l) => l !== "" && !l.startsWith("#"));

const stages = new Map(); // name → its root folder
let stage = "";
let workdir = "/";
let cmd;
let entrypoint;
let healthcheck;
const skipped = [];

try {
  for (const line of lines) {
    const [op, ...restParts] = line.split(/\s+/);
    const rest = line.slice(op.length).trim();
    switch (op) {
      case "FROM": {
        const as = / AS (\S+)$/i.exec(rest);
        stage = as ? as[1] : "runtime";
        stages.set(stage, stage === "runtime" ? root : inRoot(`.stage-${stage}`));
        workdir = "/";
        break;
      }
      case "WORKDIR":
        workdir = rest;
        mkdirSync(join(stages.get(stage), workdir), { recursive: true });
        break;
      case "COPY": {
        const from = /^--from=(\S+)\s+/.exec(rest);
        const args = (from ? rest.slice(from[0].length) : rest).split(/\s+/);
        const dest = args.pop();
        const base = stages.get(stage);
        const target = dest.startsWith("/") ? join(base, dest) : join(base, workdir, dest);
        for (const src of args) {
          const source = from ? join(stages.get(from[1]), src) : join(repo, src);
          const into = dest.endsWith("/") ? join(target, src.split("/").pop()) : target;
          mkdirSync(dirname(into), { recursive: true });
          cpSync(source, into, { recursive: true, verbatimSymlinks: true });
        }
        break;
      }
      case "RUN":
        if (stage === "runtime") {
          skipped.push(rest);
          break;
        }
        say(`RUN ${rest}`);
        execFileSync("/bin/sh", ["-c", rest], {
          cwd: join(stages.get(stage), workdir),
          stdio: "inherit",
          env: { ...process.env, CI: "true" },
        });
        break;
      case "CMD":
        cmd = JSON.parse(rest);
        break;
      case "ENTRYPOINT":
        entrypoint = JSON.parse(rest);
        break;
      case "HEALTHCHECK":
        healthcheck = JSON.parse(rest.slice(rest.indexOf("CMD") + 3));
        break;
      default:
        void restParts; // ENV, USER, VOLUME, EXPOSE: nothing to run
    }
  }
  for (const s of skipped) say(`not run natively (needs root): RUN ${s.slice(0, 90)}...`);

  // What the skipped RUN lines make: the folders and the two symlinks.
  for (const d of [
    "var/lib/autoloop-cron",
    "etc/autoloop-cron/schedules",
    "etc/autoloop-cron/demo",
    "usr/local/bin",
  ])
    mkdirSync(inRoot(d), { recursive: true });
  const bin = inRoot("usr/local/bin");
  symlinkSync(inRoot("opt/autoloop-cron/dist/bin/autoloop-cron.js"), join(bin, "autoloop-cron"));
  symlinkSync(inRoot("opt/autoloop-cron/dist/bin/autoloop.cjs"), join(bin, "autoloop"));

  // The baked config, its absolute paths moved under the temp root and on a free port.
  const config = inRoot("etc/autoloop-cron/autoloop-cron.toml");
  const port = 20000 + Math.floor(Math.random() * 20000);
  writeFileSync(
    config,
    readFileSync(config, "utf8")
      .replaceAll("/var/lib/autoloop-cron", inRoot("var/lib/autoloop-cron"))
      .replace("0.0.0.0:9464", `127.0.0.1:${port}`),
  );
  const mapArg = (a) => (a.startsWith("/etc/") ? inRoot(a) : a);
  const env = {
    ...process.env,
    PATH: `${bin}:${process.env.PATH}`,
    HOME: inRoot("var/lib/autoloop-cron"),
    NODE_ENV: "production",
  };
  const runArgv = (argv) =>
    execFileSync(argv[0], argv.slice(1).map(mapArg), {
      env,
      encoding: "utf8",
      stdio: ["ignore", "pipe", "pipe"],
    });

  say(runArgv(["autoloop-cron", "--version"]).trim());
  say(
    runArgv([
      "autoloop-cron",
      "validate",
      "--config",
      "/etc/autoloop-cron/autoloop-cron.toml",
    ]).trim(),
  );

  // ENTRYPOINT (tini aside) + CMD: the daemon under the image's umask, until healthy.
  const shell = entrypoint.slice(entrypoint.indexOf("/bin/sh"));
  const daemon = spawn(shell[0], [...shell.slice(1), ...cmd.map(mapArg)], { env, stdio: "ignore" });
  const deadline = Date.now() + 30_000;
  let healthy = false;
  while (!healthy && Date.now() < deadline) {
    try {
      runArgv(healthcheck);
      healthy = true;
    } catch {
      await new Promise((r) => setTimeout(r, 300));
    }
  }
  daemon.kill("SIGTERM");
  await new Promise((r) => daemon.once("exit", r));
  if (!healthy) throw new Error("the HEALTHCHECK command never passed against the image's CMD");
  say("CMD started the daemon and the HEALTHCHECK passed");
} finally {
  rmSync(root, { recursive: true, force: true });
}
