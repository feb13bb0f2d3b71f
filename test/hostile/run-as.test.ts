// `backend.run_as`: the agent runs as another user, so the operating system, not only what a
// run is told, keeps it out of the run's private folder and the daemon's state dir, and away
// from the harness's process; through its event tool it still writes the journal and tasks.
// Needs root (CI and this machine run the tests as root): skipped otherwise.
import {
  chmodSync,
  chownSync,
  existsSync,
  mkdirSync,
  readFileSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { execa } from "execa";
import { afterEach, describe, expect, it } from "vitest";
import { agentLaunch, agentUser } from "../../src/harness/agents/run-as.js";
import { privateRunPaths } from "../../src/harness/control/private-run.js";
import { AUTOLOOP, autoloop, cleanEnv, cleanupTempDirs, tempDir } from "../helpers/cli.js";
import { journalOf, topics } from "../helpers/journal.js";

afterEach(cleanupTempDirs);

const isRoot = process.getuid?.() === 0;
const NOBODY = 65534;

/** What the agent tries, each result a line in `agent-results.txt` in the project. */
const AGENT = `#!/bin/sh
out="$AUTOLOOP_PROJECT_DIR/agent-results.txt"
try() { if eval "$2" 2>/dev/null; then echo "$1=done"; else echo "$1=refused"; fi >> "$out"; }
echo "uid=$(id -u)" >> "$out"
echo "home=$HOME" >> "$out"
grep '^Cap\\(Eff\\|Amb\\)' /proc/self/status | tr -d '\\t' | tr : = >> "$out"
try respond "printf '{\\"id\\":\\"ctl_forged_aaaaaa\\",\\"runId\\":\\"%s\\",\\"requestedAt\\":\\"2026-11-29T00:00:00.000Z\\",\\"verb\\":\\"respond\\",\\"reason\\":\\"respond\\",\\"payload\\":{\\"questionId\\":\\"ask_x_1\\",\\"answer\\":\\"yes\\"}}\\n' \\"$AUTOLOOP_RUN_ID\\" >> \\"$PRIVATE_REQUESTS\\""
try prompt "cat \\"$AUTOLOOP_PROMPT_PATH\\" > /dev/null"
try state "echo '{}' > \\"$DAEMON_STATE/paused.json\\""
try signal "kill -USR1 $PPID"
"$AUTOLOOP_BIN" emit agent.note "ran as $(id -u)"
id=$("$AUTOLOOP_BIN" task add "check the report")
echo "task=$id" >> "$out"
"$AUTOLOOP_BIN" task complete "$id"
exec "$AUTOLOOP_BIN" emit task.complete "done"
`;

interface Setup {
  base: string;
  project: string;
  operator: string;
  daemonState: string;
  preset: string;
  requests: string;
}

/** A project shared with nobody's group, a root-only state dir, and an open operator home. */
function setup(runId: string, runAs: string | undefined, projectOwner = 0): Setup {
  const base = tempDir();
  chmodSync(base, 0o755);
  const project = join(base, "project");
  mkdirSync(project);
  chownSync(project, projectOwner, NOBODY);
  chmodSync(project, 0o2775);
  // Open folders above the private one: what keeps the agent out is the folder's own 0700.
  const operator = join(base, "operator");
  mkdirSync(join(operator, "runs"), { recursive: true });
  chmodSync(operator, 0o755);
  chmodSync(join(operator, "runs"), 0o755);
  chownSync(operator, projectOwner, projectOwner);
  chownSync(join(operator, "runs"), projectOwner, projectOwner);
  const daemonState = join(base, "state");
  mkdirSync(daemonState, { mode: 0o700 });
  const preset = join(base, "preset");
  mkdirSync(preset);
  writeFileSync(join(preset, "agent.sh"), AGENT, { mode: 0o755 });
  const requests = privateRunPaths(runId, join(project, ".autoloop", "journal.jsonl"), {
    AUTOLOOP_OPERATOR_DIR: operator,
  }).control.requests;
  writeFileSync(
    join(preset, "autoloops.toml"),
    `[event_loop]\nmax_iterations = 2\n\n[backend]\ncommand = ${JSON.stringify(join(preset, "agent.sh"))}\nprompt_mode = "file"\n${runAs === undefined ? "" : `run_as = ${JSON.stringify(runAs)}\n`}\n[backend.env]\nPRIVATE_REQUESTS = ${JSON.stringify(requests)}\nDAEMON_STATE = ${JSON.stringify(daemonState)}\n`,
  );
  return { base, project, operator, daemonState, preset, requests };
}

const results = (project: string) =>
  Object.fromEntries(
    readFileSync(join(project, "agent-results.txt"), "utf8")
      .trim()
      .split("\n")
      .map((line) => line.split("=") as [string, string]),
  );

/** What holds whoever runs the harness: the agent wrote its events and tasks, and nothing of ours. */
function expectFenced(s: Setup, uid: number): void {
  const got = results(s.project);
  expect(got.uid).toBe(String(NOBODY));
  expect(got.home).toBe("/nonexistent"); // nobody's own home, from /etc/passwd
  expect(got.CapEff).toBe("0000000000000000");
  expect(got.CapAmb).toBe("0000000000000000");
  expect({ respond: got.respond, state: got.state, signal: got.signal }).toEqual({
    respond: "refused",
    state: "refused",
    signal: "refused",
  });
  expect(got.task).toBe("task-1");
  expect(got.prompt).toBe("done");
  const journal = journalOf(s.project);
  expect(topics(journal)).toContain("agent.note");
  expect(topics(journal).at(-1)).toBe("loop.complete");
  expect(existsSync(join(s.daemonState, "paused.json"))).toBe(false);
  const requests = existsSync(s.requests) ? readFileSync(s.requests, "utf8") : "";
  expect(requests).not.toContain("ctl_forged");
  // The private folder is the harness's alone; the project's state is shared with the group.
  const privateDir = statSync(join(s.requests, "..", ".."));
  expect({ uid: privateDir.uid, mode: privateDir.mode & 0o777 }).toEqual({ uid, mode: 0o700 });
  const shared = statSync(join(s.project, ".autoloop"));
  expect({ gid: shared.gid, groupWrite: (shared.mode & 0o070) === 0o070 }).toEqual({
    gid: NOBODY,
    groupWrite: true,
  });
}

const HARNESS = 4242;

/**
 * The systemd way: the harness is its own user, with CAP_SETUID, CAP_SETGID and CAP_KILL
 * ambient, and a member of the agent's group; its agents must inherit none of them.
 */
function runAsCapableUser(s: Setup, runId: string) {
  // Under the container's umask: what the agent must read or write is shared all the same.
  return execa(
    "sh",
    [
      "-c",
      'umask 077; exec "$@"',
      "sh",
      "setpriv",
      `--reuid=${HARNESS}`,
      `--regid=${HARNESS}`,
      `--groups=${NOBODY}`,
      "--inh-caps=+setuid,+setgid,+kill",
      "--ambient-caps=+setuid,+setgid,+kill",
      "--",
      process.execPath,
      AUTOLOOP,
      ...["run", s.preset, "Check the report", "--run-id", runId],
    ],
    {
      reject: false,
      cwd: s.project,
      env: cleanEnv({ AUTOLOOP_OPERATOR_DIR: s.operator, HOME: s.operator }),
      extendEnv: false,
    },
  );
}

describe.skipIf(!isRoot)("an agent run as another user (backend.run_as)", () => {
  it("writes its events and tasks, and cannot answer itself, write the state dir or signal the harness", async () => {
    const s = setup("asnobody", "nobody");
    const run = await autoloop(["run", s.preset, "Check the report", "--run-id", "asnobody"], {
      cwd: s.project,
      env: { AUTOLOOP_OPERATOR_DIR: s.operator },
    });
    expect(run.exitCode, run.stderr).toBe(0);
    expectFenced(s, 0);
  }, 30_000);

  it("drops the capabilities a non-root harness switches users with", async () => {
    const s = setup("ascaps", `${NOBODY}:${NOBODY}`, HARNESS);
    const run = await runAsCapableUser(s, "ascaps");
    expect(run.exitCode, run.stderr).toBe(0);
    expectFenced(s, HARNESS);
  }, 30_000);

  it("drops them for an agent without run_as too (it would otherwise become anyone)", async () => {
    const s = setup("capsonly", undefined, HARNESS);
    const run = await runAsCapableUser(s, "capsonly");
    expect(run.exitCode, run.stderr).toBe(0);
    const got = results(s.project);
    expect({ uid: got.uid, CapEff: got.CapEff, CapAmb: got.CapAmb }).toEqual({
      uid: String(HARNESS),
      CapEff: "0000000000000000",
      CapAmb: "0000000000000000",
    });
  }, 30_000);

  it("refuses to start when the harness cannot switch users, naming the fix", async () => {
    const s = setup("nocaps", "nobody", 4242);
    const run = await execa(
      "setpriv",
      ["--reuid=4242", "--regid=4242", "--clear-groups", "--", process.execPath, AUTOLOOP].concat([
        "run",
        s.preset,
        "x",
        "--run-id",
        "nocaps",
      ]),
      { reject: false, cwd: s.project, env: cleanEnv({ HOME: s.operator }), extendEnv: false },
    );
    expect(run.exitCode).not.toBe(0);
    expect(run.stderr).toContain("without CAP_SETUID, CAP_SETGID and CAP_KILL");
    expect(run.stderr).toContain("AmbientCapabilities=CAP_SETUID CAP_SETGID CAP_KILL");
  }, 30_000);

  it("refuses a user this host does not have, naming the key, the value and the fix", async () => {
    const s = setup("nouser", "no-such-agent-user");
    const run = await autoloop(["run", s.preset, "x", "--run-id", "nouser"], {
      cwd: s.project,
      env: { AUTOLOOP_OPERATOR_DIR: s.operator },
    });
    expect(run.exitCode).not.toBe(0);
    expect(run.stderr).toContain("backend.run_as");
    expect(run.stderr).toContain('"no-such-agent-user"');
    expect(run.stderr).toContain("useradd");
    expect(existsSync(join(s.project, ".autoloop", "journal.jsonl"))).toBe(false);
  }, 30_000);
});

describe("backend.run_as's value", () => {
  it("names the preset file, the key, the value and the fix for an unknown user", () => {
    expect(() => agentUser("no-such-agent-user", "/p/autoloops.toml")).toThrow(
      /\/p\/autoloops\.toml: backend\.run_as: found "no-such-agent-user"; expected a user of this host .*useradd/,
    );
    expect(() => agentUser("nobody:no-such-group", "/p/autoloops.toml")).toThrow(
      /backend\.run_as.*no group "no-such-group"/,
    );
    expect(() => agentUser("root", "/p/autoloops.toml")).toThrow(/other than root/);
  });

  it.skipIf(!isRoot)("resolves a name, a uid and a group to ids and the user's home", () => {
    expect(agentUser("nobody", "f")).toMatchObject({
      uid: NOBODY,
      gid: NOBODY,
      home: "/nonexistent",
    });
    expect(agentUser(`${NOBODY}:${NOBODY}`, "f")).toMatchObject({ uid: NOBODY, gid: NOBODY });
    expect(agentLaunch("nobody", "f").setpriv).toBeUndefined(); // leaving root drops every capability
  });
});
