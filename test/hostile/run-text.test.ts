// Run text (task texts, memory, questions, journal lines) is the run's, so it is evidence
// shown as plain text: an env_file key it writes is redacted when our tools write it and again
// wherever it is shown (the run's page, every alert format), its terminal escapes never reach
// the operator's terminal, and its chat markup never mentions anyone or links anywhere.
import {
  appendFileSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { createServer, type Server } from "node:http";
import { hostname } from "node:os";
import { join } from "node:path";
import { execa } from "execa";
import { afterEach, describe, expect, it } from "vitest";
import { writeLaunchRecord } from "../../src/harness/control/launch-record.js";
import { privateRunPaths } from "../../src/harness/control/private-run.js";
import { writeQuestionRecord } from "../../src/harness/control/question-record.js";
import { encodeRecord, type JournalRecord } from "../../src/journal/codec.js";
import { AUTOLOOP, AUTOLOOP_CRON, cleanEnv, cleanupTempDirs, tempDir } from "../helpers/cli.js";
import { spawnFakeHarness } from "../helpers/fake-harness.js";
import { waitFor } from "../helpers/wait.js";
import { freePort } from "./daemon-process.js";

afterEach(cleanupTempDirs);

const KEY = "sk-live-4f9c2e7a1b3d5f60";
/** What an agent writes to reach people: mentions, masked links, Markdown links. */
const MARKUP =
  "<!here> <@U123> <http://evil.example|Approve here> <users/all> [Approve](http://evil.example) @everyone";

interface Received {
  path: string;
  body: string;
}

/** A real HTTP receiver on 127.0.0.1 that keeps every request body. */
async function receiver(): Promise<{ server: Server; url: string; got: Received[] }> {
  const got: Received[] = [];
  const server = createServer((req, res) => {
    let body = "";
    req.on("data", (c: Buffer) => {
      body += c.toString("utf8");
    });
    req.on("end", () => {
      got.push({ path: req.url ?? "", body });
      res.writeHead(200, { "content-type": "application/json" }).end("{}");
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const { port } = server.address() as { port: number };
  return { server, url: `http://127.0.0.1:${port}`, got };
}

const FORMATS = ["standard", "slack", "discord", "teams", "google_chat"] as const;

/** Every string in a JSON value. */
function strings(value: unknown): string[] {
  if (typeof value === "string") return [value];
  if (Array.isArray(value)) return value.flatMap(strings);
  if (value !== null && typeof value === "object") return Object.values(value).flatMap(strings);
  return [];
}

// The agent, each iteration: once, a task and a learning with its key through the event
// tool, a task with its key written straight into the tasks file (past the tool), one whose id
// is chat markup, and an event with chat markup; then a knock on the completion gate (refused: tasks are open).
const AGENT = `
T="$AUTOLOOP_BIN"
if [ ! -f "$AUTOLOOP_STATE_DIR/once" ]; then
  "$T" task add "deploy with $AGENT_KEY ${MARKUP}"
  "$T" memory add learning "the key is $AGENT_KEY"
  printf '{"id": "task-9", "type": "task", "text": "raw %s ${MARKUP}", "status": "open", "source": "manual", "created": "2026-01-01T00:00:00Z"}\\n' "$AGENT_KEY" >> "$AUTOLOOP_TASKS_FILE"
  printf '{"id": "<!channel>", "type": "task", "text": "an id of markup", "status": "open", "source": "manual", "created": "2026-01-01T00:00:00Z"}\\n' >> "$AUTOLOOP_TASKS_FILE"
  "$T" emit note.markup "journal ${MARKUP}"
  touch "$AUTOLOOP_STATE_DIR/once"
fi
"$T" emit task.complete "done" || true
echo "iteration $AUTOLOOP_ITERATION"
sleep 1
`;

function writeSetup(root: string, port: number, hook: string): string {
  mkdirSync(join(root, "schedules"));
  mkdirSync(join(root, "work"));
  const preset = join(root, "leaky");
  mkdirSync(preset);
  writeFileSync(
    join(preset, "autoloops.toml"),
    `[event_loop]\nmax_iterations = 12\n[backend]\ncommand = "sh"\nargs = ["-c", ${JSON.stringify(AGENT)}]\n`,
  );
  writeFileSync(join(root, "agent.env"), `AGENT_KEY=${KEY}\n`, { mode: 0o600 });
  const channels = FORMATS.map(
    (f) => `[[channel]]\nname = "${f}"\ntype = "webhook"\nurl = "${hook}/${f}"\nformat = "${f}"\n`,
  ).join("");
  const config = join(root, "autoloop-cron.toml");
  writeFileSync(
    config,
    `state_dir = "state"\n[http]\nlisten = "127.0.0.1:${port}"\n[defaults]\ncatch_up = "none"\n${channels}[[channel]]\nname = "mail"\ntype = "email"\nfrom = "autoloop@localhost"\nto = ["oncall@localhost"]\n`,
  );
  writeFileSync(
    join(root, "schedules", "leaky.toml"),
    `[[schedule]]\nname = "leaky"\ncron = "0 3 1 1 *"\npreset = ${JSON.stringify(preset)}\nobjective = "x"\nproject_dir = "../work"\nenv_file = "../agent.env"\n[schedule.monitor]\ngate_rejections = 2\n`,
  );
  return config;
}

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: "utf8" })
    .map((f) => join(dir, f))
    .filter((f) => statSync(f).isFile());
}

interface LeakyRun {
  /** The run's tasks file and memory files, as the run left them. */
  tasks: string;
  memory: string;
  /** Its page, from the daemon's HTTP server. */
  html: string;
  /** Every request the receiver got; the gate_stuck one of each format by its path. */
  got: Received[];
  gate: (format: (typeof FORMATS)[number]) => unknown;
  /** The sink's files (.eml and .txt), by name. */
  mails: Map<string, string>;
}

/** A real daemon runs the leaky agent until its gate_stuck page reached every format. */
async function leakyRun(): Promise<LeakyRun> {
  const root = tempDir("autoloop-runtext-");
  const hook = await receiver();
  const port = await freePort();
  const config = writeSetup(root, port, hook.url);
  const cron = (...args: string[]) =>
    execa(process.execPath, [AUTOLOOP_CRON, ...args, "--config", config], {
      env: cleanEnv(),
      extendEnv: false,
      reject: false,
    });
  const daemon = execa(process.execPath, [AUTOLOOP_CRON, "start", "--config", config], {
    env: cleanEnv(),
    extendEnv: false,
    reject: false,
    all: true,
  });
  const page = `http://127.0.0.1:${port}`;
  let runId: string | undefined;
  try {
    await waitFor(
      async () => {
        if (daemon.exitCode !== null) throw new Error(`the daemon exited: ${(await daemon).all}`);
        return (await fetch(`${page}/healthz`).catch(() => undefined))?.status === 200;
      },
      "the daemon's /healthz",
      20_000,
      100,
    );
    const fired = await cron("fire", "leaky");
    if (fired.exitCode !== 0) throw new Error(`fire failed: ${fired.stderr}`);
    const gate = await waitFor(
      () => {
        const pages = hook.got.filter((r) => r.body.includes("gate stuck"));
        return FORMATS.every((f) => pages.some((r) => r.path === `/${f}`)) && pages;
      },
      "a gate_stuck alert in every format",
      60_000,
      100,
    );
    const gateOf = (f: string) => JSON.parse(gate.find((r) => r.path === `/${f}`)!.body);
    runId = gateOf("standard").data.runId as string;
    const html = await (await fetch(`${page}/runs/${runId}`)).text();
    const mailDir = join(root, "state", "mail");
    await waitFor(
      () => existsSync(mailDir) && readdirSync(mailDir).some((f) => f.endsWith(".txt")),
      "the mail",
    );
    const autoloopDir = join(root, "work", ".autoloop");
    return {
      tasks: readFileSync(join(autoloopDir, "runs", runId, "tasks.jsonl"), "utf8"),
      memory: filesUnder(autoloopDir)
        .filter((f) => f.endsWith("memory.jsonl"))
        .map((f) => readFileSync(f, "utf8"))
        .join(""),
      html,
      got: [...hook.got],
      gate: gateOf,
      mails: new Map(readdirSync(mailDir).map((f) => [f, readFileSync(join(mailDir, f), "utf8")])),
    };
  } finally {
    if (runId !== undefined) await cron("stop", runId);
    daemon.kill("SIGTERM");
    await daemon;
    hook.server.close();
  }
}

let scenario: Promise<LeakyRun> | undefined;
/** One leaky run serves both tests below. */
const theLeakyRun = () => {
  scenario ??= leakyRun();
  return scenario;
};

describe("an env_file key a run writes into its tasks and memory", () => {
  it("is redacted by the event tool, and again on the run's page and in every alert format", async () => {
    const run = await theLeakyRun();
    // The event tool's writes: the key never reached the files.
    const toolLines = run.tasks.split("\n").filter((l) => !l.includes('"task-9"'));
    expect(toolLines.join("\n")).toContain("deploy with [REDACTED]");
    expect(toolLines.join("\n")).not.toContain(KEY);
    expect(run.memory).toContain("the key is [REDACTED]");
    expect(run.memory).not.toContain(KEY);
    // The line the agent wrote past the tool has it: what shows it must hide it again.
    expect(run.tasks).toContain(`raw ${KEY}`);

    // The run's page: its tasks, redacted.
    expect(run.html).toContain("deploy with [REDACTED]");
    expect(run.html).toContain("raw [REDACTED]");
    expect(run.html).not.toContain(KEY);
    // Every format, and the mail (its .eml and .txt).
    for (const r of run.got) expect(r.body, r.path).not.toContain(KEY);
    expect(JSON.stringify(run.gate("slack"))).toContain("raw [REDACTED]");
    for (const [name, text] of run.mails) expect(text, name).not.toContain(KEY);
  }, 120_000);
});

describe("chat markup a run writes (mentions, masked and Markdown links)", () => {
  it("reaches every chat format as plain text: no mention, no link", async () => {
    const run = await theLeakyRun();
    for (const f of ["slack", "google_chat"] as const) {
      const text = strings(run.gate(f)).join("\n");
      expect(text, f).toContain("&lt;!here&gt;");
      expect(text, f).toContain("&lt;!channel&gt;"); // a task id the agent chose
      for (const raw of [
        "<!here>",
        "<!channel>",
        "<@U123>",
        "<http://evil.example|",
        "<users/all>",
      ])
        expect(text, `${f}: ${raw}`).not.toContain(raw);
    }
    const discord = run.gate("discord") as { allowed_mentions: unknown };
    expect(discord.allowed_mentions).toEqual({ parse: [] });
    // Outside its code block (where Discord renders nothing), Markdown is escaped.
    const prose = strings(discord)
      .join("\n")
      .replace(/```[\s\S]*?```/g, "");
    expect(prose).toContain("\\[Approve\\]\\(http://evil.example\\)");
    for (const raw of ["[Approve](", "<@U123>", "@everyone", "<http://evil.example|"])
      expect(prose, `discord: ${raw}`).not.toContain(raw);
    const teams = strings(run.gate("teams")).join("\n");
    expect(teams).toContain("\\[Approve\\]\\(http://evil.example\\)");
    expect(teams).not.toContain("[Approve](");
  }, 120_000);
});

const RUN = "run-20261127-0100-escape";
/** OSC 52 (writes the clipboard), OSC 0 (the window title), SGR 8 (hidden text), a NUL, a BEL. */
const ESCAPES =
  "\u001b]52;c;ZWNobyBwd25lZA==\u0007\u001b]0;pwned\u0007\u001b[8mhidden\u001b[0m\u0000";
const QUESTION = `Ship it? ${ESCAPES}${"A".repeat(200_000)}`;

/** A project whose live run (its harness: a sleeping stand-in) asks `QUESTION`. */
function askingRun(root: string, harnessPid: number): string {
  const project = join(root, "project");
  mkdirSync(join(project, ".autoloop", "runs", RUN), { recursive: true });
  writeFileSync(
    join(project, ".autoloop/registry.jsonl"),
    `${JSON.stringify({ run_id: RUN, status: "running", pid: harnessPid, host: hostname(), state_dir: `runs/${RUN}` })}\n`,
  );
  const ts = (s: number) => new Date(Date.now() - 60_000 + s * 1000).toISOString();
  const records: JournalRecord[] = [
    {
      shape: "system",
      run: RUN,
      topic: "loop.start",
      ts: ts(0),
      v: 1,
      fields: { objective: "x", preset: "demo", work_dir: project },
    },
    {
      shape: "system",
      run: RUN,
      iteration: "1",
      topic: "ask.pending",
      ts: ts(1),
      v: 1,
      fields: { question_id: "q1", question: QUESTION },
    },
  ];
  const journal = join(project, ".autoloop/journal.jsonl");
  appendFileSync(journal, records.map((r) => `${encodeRecord(r)}\n`).join(""));
  // What our harness records in the run's private folder when it launches and asks.
  const own = privateRunPaths(RUN, journal);
  writeLaunchRecord(own, {
    runId: RUN,
    preset: "demo",
    presetDir: project,
    presetDigest: "",
    workDir: project,
    journalFile: journal,
    objective: "x",
    trigger: "cli",
    parentRunId: "",
    maxIterations: 1,
    createdAt: ts(0),
    envNames: [],
  });
  const asked = { questionId: "q1", question: QUESTION, iteration: "1", askedAt: ts(1) };
  writeQuestionRecord(own, { ...asked, timeoutAt: ts(600), state: "waiting" });
  return journal;
}

/** No byte a terminal acts on: ESC, BEL, NUL, C1 controls. */
const RAW_CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/;

describe("a question full of terminal escapes", () => {
  it("reaches no terminal: control show, answer and the sink's .txt show it escaped and cut", async () => {
    const root = tempDir("autoloop-escapes-");
    writeFileSync(join(root, "autoloop-cron.toml"), 'state_dir = "state"\n');
    const harness = spawnFakeHarness(root);
    try {
      const journal = askingRun(root, harness.pid!);
      const run = (bin: string, args: string[]) =>
        execa(process.execPath, [bin, ...args], {
          cwd: root,
          env: cleanEnv(),
          extendEnv: false,
          reject: false,
        });
      const checked = (what: string, text: string) => {
        expect(text, what).not.toMatch(RAW_CONTROL);
        expect(text.length, what).toBeLessThan(100_000);
      };

      const show = await run(AUTOLOOP, ["control", "show", RUN, "--work-dir", "project"]);
      expect(show.exitCode, show.stderr).toBe(0);
      checked("control show", show.stdout);
      expect(show.stdout).toContain("\\u001b]52;c;");
      expect(show.stdout).toMatch(/… \(\d+ more bytes\)/);

      // The monitor tracks the run (so `answer` finds it) and pages it through the sink.
      const monitor = await run(AUTOLOOP_CRON, ["monitor", "--once", "--journal", journal]);
      expect(monitor.exitCode, monitor.stderr).toBe(0);
      const mail = join(root, "state", "mail");
      const txt = readdirSync(mail).filter((f) => f.endsWith(".txt"));
      expect(txt.length).toBeGreaterThan(0);
      for (const f of txt) {
        const text = readFileSync(join(mail, f), "utf8");
        checked(f, text);
        expect(text).toContain("\\u001b]0;pwned");
      }

      const answer = await run(AUTOLOOP_CRON, ["answer", RUN, "yes"]);
      expect(answer.exitCode, answer.stderr).toBe(0);
      checked("answer", answer.stdout);
      expect(answer.stdout).toContain("answered q1");
      checked("answer's errors", answer.stderr);
    } finally {
      harness.kill();
    }
  });
});
