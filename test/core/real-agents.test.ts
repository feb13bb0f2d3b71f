// The bundled presets against the real Claude Code, Codex and Gemini CLIs (devDependencies),
// with an empty HOME and no credentials: each run must reach the CLI's own login refusal and
// stop `auth_failed`. (The logged-in path is test/agents/, against the scripted model server.)
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { execa } from "execa";
import { afterEach, describe, expect, it } from "vitest";
import { AUTOLOOP_CRON, autoloop, cleanEnv, cleanupTempDirs, tempDir } from "../helpers/cli.js";
import { field, journalOf } from "../helpers/journal.js";
import { loggedInEnv, loggedOutEnv, modelServerFor } from "../helpers/logged-in.js";
import { AUTOFIX_PLAN, presetAgent } from "../helpers/preset-agent.js";

afterEach(cleanupTempDirs);

function gitProject(): string {
  const dir = tempDir("autoloop-project-");
  execFileSync("git", ["init", "-q", dir]);
  writeFileSync(join(dir, "README.md"), "a project\n");
  return dir;
}

const REFUSALS: Record<string, RegExp> = {
  claude: /Not logged in/,
  codex: /Not logged in/,
  gemini: /Please set an Auth method/,
};

describe.each(["autofix", "review"])(
  "the bundled %s preset with real agent CLIs, logged out",
  (preset) => {
    it.each(["claude", "codex", "gemini"])(
      "%s stops auth_failed at its own login refusal",
      async (agent) => {
        const dir = gitProject();
        const env = loggedOutEnv();
        const run = await autoloop(
          [
            "run",
            preset,
            "Make the tests pass",
            "--set",
            `backend.command=${agent}`,
            "--json",
            "--quiet",
          ],
          { cwd: dir, env },
        );
        expect(run.stderr).toBe("");
        expect(run.exitCode).toBe(1);
        const journal = journalOf(dir);
        const stop = journal.at(-1);
        expect(stop?.topic).toBe("loop.stop");
        expect(field(stop, "reason")).toBe("auth_failed");
        expect(field(stop, "output_tail")).toMatch(REFUSALS[agent]!);
        // What on-call reads: which command to run as which user.
        expect(field(stop, "detail")).toContain(
          { claude: "claude /login", codex: "codex login", gemini: "GEMINI_API_KEY" }[agent]!,
        );
        // Never the old failures: a swallowed prompt, an unknown flag, an untrusted folder.
        const output = journal.map((r) => field(r, "output") ?? "").join("\n");
        expect(output).not.toMatch(/Input must be provided|unexpected argument|not trusted/);
      },
      60_000,
    );
  },
);

describe("gemini pointed at a gateway URL without choosing its auth", () => {
  it("stops auth_failed with the setting that fixes it, not 'set GEMINI_API_KEY'", async () => {
    const dir = gitProject();
    const env = {
      ...loggedOutEnv(),
      GEMINI_API_KEY: "set-already",
      GOOGLE_GEMINI_BASE_URL: "http://127.0.0.1:9",
    };
    const run = await autoloop(
      ["run", "autofix", "x", "--set", "backend.command=gemini", "--quiet"],
      { cwd: dir, env },
    );
    expect(run.exitCode, run.stderr).toBe(1);
    const stop = journalOf(dir).at(-1);
    expect(field(stop, "reason")).toBe("auth_failed");
    expect(field(stop, "output_tail")).toContain("Invalid auth method selected");
    expect(field(stop, "detail")).toContain('"selectedType": "gemini-api-key"');
  }, 60_000);
});

describe("agent CLIs that are missing", () => {
  it("stops backend_failed naming the command and the PATH searched", async () => {
    const dir = gitProject();
    const emptyBin = tempDir("autoloop-bin-");
    const run = await autoloop(["run", "autofix", "x", "--quiet"], {
      cwd: dir,
      env: { PATH: emptyBin },
    });
    expect(run.exitCode).toBe(1);
    const stop = journalOf(dir).at(-1);
    expect(field(stop, "reason")).toBe("backend_failed");
    expect(field(stop, "detail")).toContain(
      `command not found: claude (searched PATH=${emptyBin})`,
    );
    expect(field(stop, "detail")).toContain("npm install -g @anthropic-ai/claude-code");
  });
});

describe("the harness's own state", () => {
  it("is ignored by git, so an agent's `git add -A` never commits it", async () => {
    const dir = gitProject();
    const run = await autoloop(["run", "demo", "Write the report", "--quiet"], { cwd: dir });
    expect(run.exitCode).toBe(0);
    expect(existsSync(join(dir, ".autoloop/.gitignore"))).toBe(true);
    execFileSync("git", ["add", "-A"], { cwd: dir });
    const staged = execFileSync("git", ["diff", "--cached", "--name-only"], {
      cwd: dir,
      encoding: "utf8",
    });
    expect(staged.split("\n").filter(Boolean)).toEqual(["README.md"]);
  });

  it("keeps a .gitignore the user wrote", async () => {
    const dir = gitProject();
    mkdirSync(join(dir, ".autoloop"));
    writeFileSync(join(dir, ".autoloop/.gitignore"), "runs/\n");
    await autoloop(["run", "demo", "x", "--quiet"], { cwd: dir });
    expect(readFileSync(join(dir, ".autoloop/.gitignore"), "utf8")).toBe("runs/\n");
  });
});

describe("credentials for one schedule's agent only (env_file)", () => {
  it("reach the agent of that schedule through `autoloop-cron fire`, not the daemon's environment", async () => {
    const dir = tempDir("autoloop-cron-");
    mkdirSync(join(dir, "schedules"));
    mkdirSync(join(dir, "work"));
    writeFileSync(join(dir, "autoloop-cron.toml"), 'state_dir = "state"\n[http]\nlisten = ""\n');
    writeFileSync(
      join(dir, "claude.env"),
      "# the nightly agent's key\nANTHROPIC_API_KEY=sk-test\n",
      {
        mode: 0o600,
      },
    );
    const schedule = (name: string, envFile: string) =>
      `[[schedule]]\nname = "${name}"\ncron = "0 3 * * *"\npreset = "autofix"\nobjective = "x"\nproject_dir = "../work"\n${envFile}\n`;
    writeFileSync(
      join(dir, "schedules", "nightly.toml"),
      schedule("with-key", 'env_file = "../claude.env"') + schedule("without-key", ""),
    );
    // Claude pointed at the scripted server, but with no key of its own.
    const server = await modelServerFor("claude", presetAgent(AUTOFIX_PLAN));
    const { ANTHROPIC_API_KEY: _unset, ...env } = loggedInEnv("claude", server);
    const fire = (name: string) =>
      execa(
        process.execPath,
        [AUTOLOOP_CRON, "fire", name, "--foreground", "--config", join(dir, "autoloop-cron.toml")],
        {
          cwd: dir,
          env: cleanEnv(env),
          extendEnv: false,
          reject: false,
        },
      );
    const withKey = await fire("with-key");
    expect(withKey.exitCode, withKey.stdout + withKey.stderr).toBe(0);
    expect(withKey.stdout + withKey.stderr).not.toContain("sk-test");
    const withoutKey = await fire("without-key");
    await server.close();
    expect(withoutKey.exitCode).toBe(1);
    expect(field(journalOf(join(dir, "work")).at(-1), "reason")).toBe("auth_failed");
  }, 60_000);
});

describe("the alert for an agent that is not logged in", () => {
  it("says what to do, with the CLI's own words", async () => {
    const root = tempDir("autoloop-cron-");
    writeFileSync(join(root, "autoloop-cron.toml"), 'state_dir = "state"\n[http]\nlisten = ""\n');
    const project = gitProject();
    const env = loggedOutEnv();
    const journal = join(project, ".autoloop/journal.jsonl");
    const monitorOnce = () =>
      execa(process.execPath, [AUTOLOOP_CRON, "monitor", "--once", "--journal", journal], {
        cwd: root,
        env: cleanEnv(),
        extendEnv: false,
        reject: false,
      });
    // The monitor is watching before the run (a first look never pages on what ended before).
    expect((await monitorOnce()).exitCode).toBe(0);
    const run = await autoloop(["run", "autofix", "x", "--quiet"], { cwd: project, env });
    expect(run.exitCode).toBe(1);
    const once = await monitorOnce();
    expect(once.exitCode, once.stderr).toBe(0);
    const mailDir = join(root, "state/mail");
    const mail = readdirSync(mailDir)
      .map((f) => readFileSync(join(mailDir, f), "utf8"))
      .join("\n");
    expect(mail).toContain("auth_failed");
    expect(mail.replace(/=\r?\n/g, "")).toContain("run `claude /login` as that user");
    expect(mail).toContain("Not logged in");
  }, 60_000);
});
