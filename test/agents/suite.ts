// The logged-in path of one real agent CLI, end to end: the CLI from npm, logged in against
// the scripted model server, running the bundled presets through `autoloop run`.
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { fieldText, type JournalRecord } from "../../src/journal/codec.js";
import { autoloop, cleanupTempDirs, scratchDir } from "../helpers/cli.js";
import { GIT_ENV, git } from "../helpers/git.js";
import { field, journalOf, topics } from "../helpers/journal.js";
import { type Cli, loggedInEnv, MODELS, modelServerFor } from "../helpers/logged-in.js";
import type { ModelServer, Script } from "../helpers/model-server/index.js";
import { AUTOFIX_PLAN, type Plan, presetAgent, REVIEW_PLAN } from "../helpers/preset-agent.js";

const TIMEOUT = 120_000;

/**
 * A git project with one commit, as a scheduled run would find it; outside /tmp, where no
 * sandbox makes an exception for it.
 */
export function gitProject(name = "autoloop-project-"): string {
  const dir = scratchDir(name);
  git(dir, "init", "-q", "-b", "main");
  writeFileSync(join(dir, "README.md"), "a project\n");
  git(dir, "add", "-A");
  git(dir, "commit", "-q", "-m", "init");
  return dir;
}

export interface LoggedInRun {
  cwd: string;
  exitCode: number | undefined;
  stderr: string;
  journal: JournalRecord[];
  server: ModelServer;
}

/** Runs a preset with `cli` logged in to a server that follows `script`. */
export async function runLoggedIn(
  cli: Cli,
  script: Script,
  args: string[],
  options: { cwd?: string } = {},
): Promise<LoggedInRun> {
  const server = await modelServerFor(cli, script);
  try {
    const cwd = options.cwd ?? gitProject();
    const run = await autoloop(["run", ...args, "--set", `backend.command=${cli}`], {
      cwd,
      env: { ...loggedInEnv(cli, server), ...GIT_ENV },
    });
    return { cwd, exitCode: run.exitCode, stderr: run.stderr, journal: journalOf(cwd), server };
  } finally {
    await server.close();
  }
}

const outputs = (journal: JournalRecord[]) =>
  journal
    .filter((r) => r.topic === "iteration.finish")
    .map((r) => field(r, "output"))
    .join("\n---\n");

export function describeLoggedIn(cli: Cli): void {
  afterEach(cleanupTempDirs);

  describe(`${cli}, logged in against the scripted model server`, () => {
    it(
      "completes autofix, journaling the agent's answer and what each iteration used",
      async () => {
        const run = await runLoggedIn(cli, presetAgent(AUTOFIX_PLAN), ["autofix", "Fix it"]);
        expect(run.exitCode, `${run.stderr}\n${outputs(run.journal)}`).toBe(0);
        expect(topics(run.journal).at(-1)).toBe("loop.complete");
        expect(field(run.journal.at(-1), "reason")).toBe("completion_event");
        expect(run.journal.filter((r) => r.topic === "task.gate")).toEqual([]);
        // The answer, not the CLI's stream around it.
        const finishes = run.journal.filter((r) => r.topic === "iteration.finish");
        expect(field(finishes[0], "output")).toBe(
          "Fixed the failing test and handed it to the verifier.",
        );
        const inspected = await autoloop(["inspect", "output", "1"], { cwd: run.cwd });
        expect(inspected.stdout).toContain("Fixed the failing test and handed it to the verifier.");
        expect(inspected.stdout).not.toContain('"type"');
        // The live log shows what the agent did, readably.
        expect(run.stderr).toContain(`${cli}: `);
        expect(run.stderr).toContain("emit fix.ready");
        expect(run.stderr).not.toMatch(/"type":/);
        // One usage record per iteration, the tokens the server reported.
        const usage = run.journal.filter((r) => r.topic === "backend.usage");
        expect(usage).toHaveLength(finishes.length);
        const main = run.server.exchanges;
        const sum = (key: "input_tokens" | "output_tokens") =>
          usage.reduce((n, r) => n + Number(fieldText(r, key)), 0);
        expect(sum("output_tokens")).toBe(main.reduce((n, e) => n + e.usage.output_tokens, 0));
        expect(sum("input_tokens")).toBe(main.reduce((n, e) => n + e.usage.input_tokens, 0));
        for (const r of usage) {
          expect(field(r, "model")).toContain(MODELS[cli].split("-").slice(0, 2).join("-"));
          expect(Number(fieldText(r, "cost_usd"))).toBeGreaterThan(0);
        }
      },
      TIMEOUT,
    );

    it(
      "completes review, which leaves REVIEW.md and nothing else in the project",
      async () => {
        const project = gitProject();
        const run = await runLoggedIn(cli, presetAgent(REVIEW_PLAN), ["review", "Review it"], {
          cwd: project,
        });
        expect(run.exitCode, `${run.stderr}\n${outputs(run.journal)}`).toBe(0);
        expect(field(run.journal.at(-1), "reason")).toBe("completion_event");
        expect(readFileSync(join(project, "REVIEW.md"), "utf8")).toContain("No problems found.");
        expect(git(project, "status", "--porcelain").trim()).toBe("?? REVIEW.md");
      },
      TIMEOUT,
    );

    it(
      "never completes an agent that never claims completion, whatever its tools print",
      async () => {
        // Its shell prints the whole prompt, completion promise included; its answers do not.
        const run = await runLoggedIn(
          cli,
          presetAgent({
            fixer: [
              { shell: "cat {state}/active-prompt.md" },
              { answer: "Still investigating (iteration {iteration})." },
            ],
          }),
          ["autofix", "Fix it", "--max-iterations", "2"],
        );
        expect(run.exitCode, run.stderr).toBe(3);
        expect(field(run.journal.at(-1), "reason")).toBe("max_iterations");
        expect(run.journal.filter((r) => r.topic === "task.gate")).toEqual([]);
        expect(outputs(run.journal)).toBe(
          "Still investigating (iteration 1).\n---\nStill investigating (iteration 2).",
        );
      },
      TIMEOUT,
    );

    it(
      "stops at cost_budget after the iteration whose cost reaches event_loop.max_cost_usd",
      async () => {
        const agent = () =>
          presetAgent({ fixer: [{ answer: "Still investigating (iteration {iteration})." }] });
        const costs = (journal: JournalRecord[]) =>
          journal
            .filter((r) => r.topic === "backend.usage")
            .map((r) => Number(fieldText(r, "cost_usd")));
        // What two iterations cost, without a budget.
        const free = await runLoggedIn(cli, agent(), [
          "autofix",
          "Fix it",
          "--max-iterations",
          "2",
        ]);
        const [c1, c2] = costs(free.journal);
        expect(c1, free.stderr).toBeGreaterThan(0);
        expect(c2).toBeGreaterThan(0);
        // The terminal record says what the run spent.
        expect(Number(field(free.journal.at(-1), "cost_usd"))).toBeCloseTo(c1! + c2!, 5);
        expect(Number(field(free.journal.at(-1), "total_tokens"))).toBeGreaterThan(0);
        // A budget the second iteration passes: the run stops after it, not before, not later.
        const max = Number((c1! + c2! / 2).toFixed(6));
        const run = await runLoggedIn(
          cli,
          agent(),
          ["autofix", "Fix it", "--max-iterations", "5", "--set", `event_loop.max_cost_usd=${max}`],
          { cwd: free.cwd },
        );
        expect(run.exitCode, run.stderr).toBe(3);
        const stop = run.journal.at(-1);
        expect(stop?.topic).toBe("loop.stop");
        expect(field(stop, "reason")).toBe("cost_budget");
        expect(field(stop, "completed_iterations")).toBe("2");
        expect(field(stop, "max_cost_usd")).toBe(String(max));
        const mine = run.journal.filter((r) => r.run === stop?.run); // the project's 2nd run
        const spent = costs(mine).reduce((a, b) => a + b, 0);
        expect(Number(field(stop, "cost_usd"))).toBeCloseTo(spent, 5);
        expect(spent).toBeGreaterThanOrEqual(max);
        // Claude is told what is left of the budget, so one iteration cannot overshoot by much.
        const told = mine
          .filter((r) => r.topic === "backend.start")
          .map((r) => JSON.parse(fieldText(r, "args")) as string[])
          .map((a) => (a.includes("--max-budget-usd") ? a[a.indexOf("--max-budget-usd") + 1] : ""));
        const left = cli === "claude" ? [max.toFixed(4), (max - c1!).toFixed(4)] : ["", ""];
        expect(told).toEqual(left);
        // `autoloop inspect usage` tells the same spend.
        const inspected = await autoloop(["inspect", "usage", "--run", stop!.run, "--json"], {
          cwd: run.cwd,
        });
        // One run's usage in the public autoloop's shape: a row per agent call, then totals.
        const { totals: usage } = JSON.parse(inspected.stdout) as {
          totals: { costUsd: number; iterations: number };
        };
        expect(usage?.iterations).toBe(2);
        expect(usage?.costUsd).toBeCloseTo(spent, 5);
        // `autoloop stats` over both runs (same project) matches a hand count of the journal.
        const stats = await autoloop(["stats", "--json"], { cwd: run.cwd });
        const [autofix] = JSON.parse(stats.stdout) as Array<Record<string, unknown>>;
        const all = costs(run.journal).reduce((a, b) => a + b, 0);
        expect(autofix).toMatchObject({
          preset: "autofix",
          runs: 2,
          completed: 0,
          stopped: 2,
          unfinished: 0,
          success_rate: 0,
          mean_iterations: 2,
          runs_with_unknown_cost: 0,
        });
        expect(autofix?.cost_usd as number).toBeCloseTo(all, 5);
      },
      TIMEOUT,
    );

    it(
      "stops a stuck agent `stalled` after stall_iterations identical answers",
      async () => {
        const run = await runLoggedIn(
          cli,
          presetAgent({ fixer: [{ shell: "git status --short" }, { answer: "I am stuck." }] }),
          ["autofix", "Fix it"],
        );
        expect(run.exitCode, run.stderr).toBe(3);
        const stop = run.journal.at(-1);
        expect(field(stop, "reason")).toBe("stalled");
        expect(field(stop, "completed_iterations")).toBe("3");
      },
      TIMEOUT,
    );

    it(
      "completes autofix in worktree isolation, the state written from the sandbox",
      async () => {
        const project = gitProject();
        const run = await runLoggedIn(
          cli,
          presetAgent({
            ...AUTOFIX_PLAN,
            fixer: [{ shell: "echo fixed > fix.txt" }, ...AUTOFIX_PLAN.fixer!],
          }),
          ["autofix", "Fix it", "--worktree"],
          { cwd: project },
        );
        expect(run.exitCode, `${run.stderr}\n${outputs(run.journal)}`).toBe(0);
        const finish = run.journal.find((r) => r.topic === "worktree.finish");
        const branch = field(finish, "branch");
        expect(git(project, "show", `${branch}:fix.txt`)).toBe("fixed\n");
        // The log says where the fix is: on the run's branch only, and how to bring it in.
        expect(run.stderr).toContain(`worktree: the changes are on branch ${branch} only`);
        expect(existsSync(join(project, "fix.txt"))).toBe(false);
      },
      TIMEOUT,
    );

    // Claude's permission rules match the command's text: a quoted path once broke them. The
    // other CLIs' autofix runs without such rules (the harness's part is the same for all).
    it.runIf(cli === "claude")(
      "works from a work dir with a space in its path",
      async () => {
        const project = gitProject("autoloop project ");
        const run = await runLoggedIn(cli, presetAgent(AUTOFIX_PLAN), ["autofix", "Fix it"], {
          cwd: project,
        });
        expect(run.exitCode, `${run.stderr}\n${outputs(run.journal)}`).toBe(0);
        const prompt = field(
          run.journal.find((r) => r.topic === "iteration.start"),
          "prompt",
        );
        expect(prompt).toMatch(/^Event tool: \S+$/m);
      },
      TIMEOUT,
    );

    it(
      "keeps review read-only: writes and deletes outside the state dir are refused",
      async () => {
        const project = gitProject();
        const hostile: Plan = {
          ...REVIEW_PLAN,
          reviewer: [
            { write: "{project}/HACKED.md", content: "pwned\n" },
            { shell: "rm -f {project}/README.md" },
            { shell: "touch {project}/TOUCHED" },
            // git writes a file with --output: allowed git, yet a write.
            { shell: "git log --output={project}/GIT-OUTPUT.txt -1" },
            ...REVIEW_PLAN.reviewer!,
          ],
        };
        const run = await runLoggedIn(cli, presetAgent(hostile), ["review", "Review it"], {
          cwd: project,
        });
        expect(run.exitCode, `${run.stderr}\n${outputs(run.journal)}`).toBe(0);
        expect(readFileSync(join(project, "README.md"), "utf8")).toBe("a project\n");
        expect(git(project, "status", "--porcelain").trim()).toBe("?? REVIEW.md");
      },
      TIMEOUT,
    );

    it(
      "classifies the API's refusals from the event stream: 401 auth_failed, 429 rate_limited",
      async () => {
        const refused = await runLoggedIn(
          cli,
          () => ({ kind: "fail", status: 401, message: "invalid x-api-key" }),
          ["autofix", "Fix it"],
        );
        expect(refused.exitCode, refused.stderr).toBe(1);
        expect(field(refused.journal.at(-1), "reason")).toBe("auth_failed");
        expect(field(refused.journal.at(-1), "detail")).toMatch(/login|API_KEY/);
        const limited = await runLoggedIn(
          cli,
          () => ({ kind: "fail", status: 429, message: "Rate limit reached", retryAfterS: 1 }),
          ["autofix", "Fix it"],
        );
        expect(limited.exitCode, limited.stderr).toBe(3);
        expect(field(limited.journal.at(-1), "reason")).toBe("rate_limited");
      },
      TIMEOUT,
    );
  });
}
