// The MCP server as a chat client meets it: the SDK's own client over a real stdio process
// (`autoloop-cron mcp`), against a real daemon running real runs.
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { execa, type ResultPromise } from "execa";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AUTOLOOP_CRON, cleanEnv, cleanupTempDirs, ROOT, tempDir } from "../helpers/cli.js";
import { waitFor } from "../helpers/wait.js";

const node = JSON.stringify(process.execPath);
const schedules = `[[schedule]]
name = "report"
cron = "0 0 1 1 *"
preset = "demo"
objective = "Write the weekly report"
project_dir = "../work"
env = { AUTOLOOP_DEMO_DELAY_MS = "50" }
budget = { per_day = 5.0 }

[[schedule]]
name = "asker"
cron = "0 0 1 1 *"
preset = "demo"
objective = "Ship the release after a human's sign-off"
project_dir = "../work"
env = { AUTOLOOP_DEMO_DELAY_MS = "50" }

[[schedule]]
name = "sleeper"
cron = "0 0 1 1 *"
kind = "command"
command = [${node}, "-e", "console.log('sleeping'); setTimeout(() => {}, 60000)"]
project_dir = "../work"

[[schedule]]
name = "exit-seven"
cron = "*/2 * * * * *"
kind = "command"
command = [${node}, "-e", "console.error('build broke: missing module left-pad'); process.exit(7)"]
project_dir = "../work"
`;

let config: string;
let daemon: ResultPromise;
let client: Client;

interface ToolText {
  isError?: boolean;
  content: { type: string; text: string }[];
}

async function call(name: string, args: Record<string, unknown> = {}): Promise<ToolText> {
  return (await client.callTool({ name, arguments: args })) as ToolText;
}
async function text(name: string, args: Record<string, unknown> = {}): Promise<string> {
  const result = await call(name, args);
  expect(result.isError, result.content[0]?.text).not.toBe(true);
  return result.content[0]!.text;
}
const data = async <T = unknown>(name: string, args: Record<string, unknown> = {}) =>
  JSON.parse(await text(name, args)) as T;

interface Run {
  runId: string;
  schedule: string;
  status: string;
  killedBy?: string;
}

beforeAll(async () => {
  const root = tempDir("autoloop-mcp-");
  mkdirSync(join(root, "schedules"));
  mkdirSync(join(root, "work"));
  config = join(root, "autoloop-cron.toml");
  writeFileSync(
    config,
    'state_dir = "state"\n[http]\nlisten = ""\n[defaults]\ncatch_up = "none"\n',
  );
  writeFileSync(join(root, "schedules", "all.toml"), schedules);
  daemon = execa(process.execPath, [AUTOLOOP_CRON, "start", "--config", config], {
    env: cleanEnv(),
    extendEnv: false,
    reject: false,
  });
  await waitFor(() => existsSync(join(root, "state", "daemon.json")), "the daemon", 30_000);
  client = new Client({ name: "autoloop-cron-test", version: "1.0.0" });
  await client.connect(
    new StdioClientTransport({
      command: process.execPath,
      args: [AUTOLOOP_CRON, "mcp", "--config", config],
      env: cleanEnv() as Record<string, string>,
      stderr: "pipe",
    }),
  );
}, 60_000);

afterAll(async () => {
  await client?.close();
  daemon?.kill("SIGTERM");
  await daemon;
  cleanupTempDirs();
});

describe("autoloop-cron mcp", () => {
  it("lists its tools, each with a JSON schema", async () => {
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual([
      "ack_incident",
      "answer_question",
      "fire_schedule",
      "guide_run",
      "list_questions",
      "list_runs",
      "list_schedules",
      "pause_schedule",
      "replay_run",
      "resume_schedule",
      "run_output",
      "spend",
      "status",
      "stop_run",
    ]);
    const listRuns = tools.find((t) => t.name === "list_runs")!;
    expect(listRuns.inputSchema).toMatchObject({
      type: "object",
      properties: { status: { enum: expect.arrayContaining(["failed", "completed"]) } },
    });
    expect(tools.find((t) => t.name === "stop_run")!.annotations).toMatchObject({
      destructiveHint: true,
      readOnlyHint: false,
    });
  });

  it("fires a schedule, lists the run, replays it and shows its output", async () => {
    const schedules = await data<{ rows: { name: string; state: string; nextFire?: string }[] }>(
      "list_schedules",
    );
    expect(schedules.rows.map((r) => r.name)).toEqual(
      expect.arrayContaining(["report", "sleeper", "exit-seven"]),
    );
    expect(schedules.rows.find((r) => r.name === "report")!.nextFire).toMatch(/^\d{4}-01-01T/);
    const fired = await data<{ runId: string }>("fire_schedule", { schedule: "report" });
    expect(fired.runId).toMatch(/^report-/);
    await waitFor(
      async () =>
        (await data<Run[]>("list_runs", { schedule: "report", status: "completed" })).some(
          (r) => r.runId === fired.runId,
        ),
      "the fired run to complete",
      30_000,
      100,
    );
    const replay = await text("replay_run", { run_id: fired.runId });
    expect(replay).toContain(`Run ${fired.runId} of report: completed`);
    expect(replay).toMatch(/iteration 1/i);
    expect(replay).toContain("completion refused 1× (task.gate: tasks open)");
    expect(await text("run_output", { run_id: fired.runId })).toContain("[autoloop]");
    expect(await data<Run[]>("list_runs", { schedule: "report", since: "1h" })).toHaveLength(1);
    expect(await data<Run[]>("list_runs", { schedule: "report", since: "2099-01-01" })).toEqual([]);
    // The demo's agent reports no usage: its cost is unknown, and a dollar budget says so.
    const [spend] = await data<Array<Record<string, unknown>>>("spend", { schedule: "report" });
    expect(spend).toMatchObject({
      schedule: "report",
      budget: { perDayUsd: 5 },
      today: { runs: 1, unknownCost: 1, costUsd: 0 },
      holds: "cannot",
    });
    expect((await call("spend", { schedule: "nope" })).content[0]!.text).toContain(
      'no schedule "nope" in force',
    );
  }, 60_000);

  it("lists the question a run waits on and answers it; the run goes on and completes", async () => {
    const fired = await data<{ runId: string }>("fire_schedule", { schedule: "asker" });
    const [question] = await waitFor(
      async () => {
        const qs =
          await data<Array<{ runId: string; questionId: string; question: string }>>(
            "list_questions",
          );
        const mine = qs.filter((q) => q.runId === fired.runId);
        return mine.length > 0 ? mine : undefined;
      },
      "the run's question",
      30_000,
      100,
    );
    expect(question).toMatchObject({
      questionId: `ask_${fired.runId}_2`,
      question: "May I ship the release? Answer yes to sign off.",
    });
    const refused = await call("answer_question", {
      run_id: fired.runId,
      answer: "yes",
      question_id: "ask_x_1",
    });
    expect(refused.isError).toBe(true);
    expect(refused.content[0]!.text).toContain(
      `waits on question ask_${fired.runId}_2, not ask_x_1`,
    );
    expect(
      await text("answer_question", { run_id: fired.runId, answer: "yes, ship it" }),
    ).toContain(`answered ask_${fired.runId}_2`);
    await waitFor(
      async () =>
        (await data<Run[]>("list_runs", { schedule: "asker", status: "completed" })).some(
          (r) => r.runId === fired.runId,
        ),
      "the answered run to complete",
      30_000,
      100,
    );
    const replay = await text("replay_run", { run_id: fired.runId });
    expect(replay).toContain("completed");
  }, 60_000);

  it("stops a running run through the daemon", async () => {
    const fired = await data<{ runId: string }>("fire_schedule", { schedule: "sleeper" });
    await waitFor(
      async () =>
        (await text("run_output", { run_id: fired.runId }).catch(() => "")).includes("sleeping"),
      "the sleeper's output",
      30_000,
      100,
    );
    expect(await text("stop_run", { run_id: fired.runId, reason: "asked in chat" })).toContain(
      fired.runId,
    );
    const stopped = await waitFor(
      async () =>
        (await data<Run[]>("list_runs", { schedule: "sleeper", status: "killed" })).find(
          (r) => r.runId === fired.runId,
        ),
      "the sleeper recorded killed",
      30_000,
      100,
    );
    expect(stopped.killedBy).toBe("operator");
  }, 60_000);

  it("tells what needs a human and acknowledges the incident", async () => {
    const status = await waitFor(
      async () => {
        const s = await data<{
          daemon: unknown;
          firing: { schedule?: string }[];
          incidents: { slug: string; status: string }[];
        }>("status");
        return s.incidents.length > 0 && s.firing.some((f) => f.schedule === "exit-seven") && s;
      },
      "the failing schedule's alert and incident",
      30_000,
      200,
    );
    expect(status.daemon).toMatchObject({ pid: expect.any(Number) });
    const slug = status.incidents[0]!.slug;
    expect(await text("ack_incident", { incident: slug, note: "on it from chat" })).toContain(
      `acknowledged ${slug}`,
    );
    const after = await data<{ incidents: { slug: string; status: string }[] }>("status");
    expect(after.incidents.find((i) => i.slug === slug)!.status).toBe("acknowledged");
  }, 60_000);

  it("answers bad requests with tool errors that say what to do", async () => {
    const unknown = await call("fire_schedule", { schedule: "nope" });
    expect(unknown.isError).toBe(true);
    expect(unknown.content[0]!.text).toContain('unknown schedule "nope"');
    const badSince = await call("list_runs", { since: "last tuesday" });
    expect(badSince.isError).toBe(true);
    expect(badSince.content[0]!.text).toContain('since: found "last tuesday"');
    const noRun = await call("replay_run", { run_id: "report-20200101T0000-zzzz" });
    expect(noRun.isError).toBe(true);
    expect(noRun.content[0]!.text).toContain("no run report-20200101T0000-zzzz");
    const badArgs = await call("list_runs", { status: "exploded" });
    expect(badArgs.isError).toBe(true);
    const noIncident = await call("ack_incident", { incident: "no-such-incident" });
    expect(noIncident.isError).toBe(true);
  });

  it("is what the real Claude Code CLI connects to (claude mcp add, then mcp list's health check)", async () => {
    const home = tempDir("autoloop-claude-home-");
    const claude = (...args: string[]) =>
      execa(join(ROOT, "node_modules/.bin/claude"), args, {
        env: { ...cleanEnv(), HOME: home, ANTHROPIC_API_KEY: "", CLAUDE_CODE_OAUTH_TOKEN: "" },
        extendEnv: false,
        reject: false,
        cwd: home,
        timeout: 90_000,
      });
    const added = await claude(
      "mcp",
      "add",
      "-s",
      "user",
      "autoloop-cron",
      "--",
      process.execPath,
      AUTOLOOP_CRON,
      "mcp",
      "--config",
      config,
    );
    expect(added.exitCode, added.stderr).toBe(0);
    const listed = await claude("mcp", "list");
    expect(listed.stdout).toMatch(/autoloop-cron: .* - ✔ Connected/);
  }, 120_000);
});
