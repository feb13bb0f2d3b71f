// The read-only presets of the library (security-review, weekly-summary), end to end with the
// real claude CLI, and security-review with codex and gemini: the report is published, the
// gate refuses completion while a task is open, and a write outside the state dir is refused.
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { gitProject, runLoggedIn } from "../agents/suite.js";
import { cleanupTempDirs } from "../helpers/cli.js";
import { git } from "../helpers/git.js";
import { field } from "../helpers/journal.js";
import type { Cli } from "../helpers/logged-in.js";
import {
  type Plan,
  presetAgent,
  SECURITY_REVIEW_PLAN,
  SECURITY_REVIEW_REPORT,
  WEEKLY_SUMMARY_PLAN,
  WEEKLY_SUMMARY_REPORT,
} from "../helpers/preset-agent.js";
import { expectGatedCompletion, TIMEOUT } from "./library.js";

afterEach(cleanupTempDirs);

/** The plan, its first role first trying to write into the project itself, twice. */
function hostile(plan: Plan, role: string): Plan {
  return {
    ...plan,
    [role]: [
      { write: "{project}/HACKED.md", content: "pwned\n" },
      // Read-only git that writes a file all the same.
      { shell: "git log --output={project}/HACKED-LOG.md" },
      ...plan[role]!,
    ],
  };
}

interface ReadOnlyCase {
  preset: string;
  objective: string;
  plan: Plan;
  firstRole: string;
  report: string;
  content: string;
}

const SECURITY_REVIEW: ReadOnlyCase = {
  preset: "security-review",
  objective: "Review the project for security problems",
  plan: SECURITY_REVIEW_PLAN,
  firstRole: "auditor",
  report: "SECURITY-REVIEW.md",
  content: SECURITY_REVIEW_REPORT,
};

const WEEKLY_SUMMARY: ReadOnlyCase = {
  preset: "weekly-summary",
  objective: "Summarise this week's changes",
  plan: WEEKLY_SUMMARY_PLAN,
  firstRole: "collector",
  report: "WEEKLY-SUMMARY.md",
  content: WEEKLY_SUMMARY_REPORT,
};

async function runReadOnly(cli: Cli, c: ReadOnlyCase): Promise<void> {
  const project = gitProject();
  const run = await runLoggedIn(
    cli,
    presetAgent(hostile(c.plan, c.firstRole)),
    [c.preset, c.objective],
    { cwd: project },
  );
  expectGatedCompletion(run, ["report.written"]);
  const published = run.journal.find((r) => r.topic === "outputs.published");
  expect(field(published, "files")).toBe(c.report);
  expect(readFileSync(join(project, c.report), "utf8")).toBe(c.content);
  // The write into the project was attempted, and refused by the CLI: nothing but the
  // published report is in the project.
  const attempted = (name: string) =>
    run.server.exchanges.some((e) => JSON.stringify(e.step).includes(name));
  expect(attempted("HACKED.md")).toBe(true);
  expect(attempted("HACKED-LOG.md")).toBe(true);
  expect(existsSync(join(project, "HACKED.md"))).toBe(false);
  expect(existsSync(join(project, "HACKED-LOG.md"))).toBe(false);
  expect(git(project, "status", "--porcelain").trim()).toBe(`?? ${c.report}`);
}

describe("read-only presets of the library, with claude", () => {
  it(
    "security-review publishes SECURITY-REVIEW.md, changes nothing else, and gates on its findings",
    () => runReadOnly("claude", SECURITY_REVIEW),
    TIMEOUT,
  );

  it(
    "weekly-summary publishes WEEKLY-SUMMARY.md, changes nothing else, and gates on its topics",
    () => runReadOnly("claude", WEEKLY_SUMMARY),
    TIMEOUT,
  );
});

describe.each(["codex", "gemini"] as const)("security-review with %s", (cli) => {
  it(
    "publishes SECURITY-REVIEW.md, refuses the write into the project, and gates",
    () => runReadOnly(cli, SECURITY_REVIEW),
    TIMEOUT,
  );
});
