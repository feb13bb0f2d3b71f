// `autoloop agents`: the agent CLIs the harness knows, how it invokes each, and whether each
// is installed on this PATH.
import { agentRows, agentTableMarkdown, commandLine } from "../harness/agents/table.js";
import { onPath } from "../harness/overview/doctor.js";
import { flag, parse } from "./common.js";

const HELP = `Usage: autoloop agents [--json | --markdown]

Lists the agent CLIs the harness knows (Claude Code, Codex, Gemini CLI, any command): the
argv it runs each iteration, where the prompt goes, where credentials come from, and where
the CLI is on this PATH. A preset's backend.command picks the agent by its file name, or
backend.agent names it; the preset's backend.args (and backend.agent_args.<agent>) are added
after these defaults and replace any default they set again.

Options:
  --json       machine-readable
  --markdown   the README's table
`;

export async function agentsCommand(argv: string[]): Promise<number> {
  const p = parse(
    argv,
    { json: { type: "boolean" }, markdown: { type: "boolean" } },
    "autoloop agents",
  );
  if (flag(p, "help")) {
    process.stdout.write(HELP);
    return 0;
  }
  if (flag(p, "markdown")) {
    process.stdout.write(agentTableMarkdown());
    return 0;
  }
  const path = process.env.PATH ?? "";
  const rows = agentRows().map((row) => ({
    ...row,
    installed: row.agent === "command" ? null : (onPath(row.agent, path) ?? null),
  }));
  if (flag(p, "json")) {
    process.stdout.write(`${JSON.stringify(rows, null, 2)}\n`);
    return 0;
  }
  for (const row of rows) {
    const where =
      row.agent === "command"
        ? ""
        : row.installed
          ? `  installed: ${row.installed}`
          : "  not on PATH";
    process.stdout.write(`${row.agent} (${row.name})${where}\n  ${commandLine(row)}\n`);
    process.stdout.write(`  credentials: ${row.credentials.replaceAll("`", "")}\n\n`);
  }
  return 0;
}
