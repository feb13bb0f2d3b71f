// The agent table of `autoloop agents` and the README: how each CLI is invoked, from the
// adapters' own facts, so documentation and behaviour cannot drift apart.
import { AGENT_IDS, AGENTS, type AgentAdapter, agentArgs } from "./index.js";

export interface AgentRow {
  agent: string;
  name: string;
  selectedBy: string;
  argv: string[];
  promptVia: string;
  credentials: string;
  npmPackage?: string;
}

function quoteIfNeeded(arg: string): string {
  return /^[A-Za-z0-9_./=:,-]+$/.test(arg) || /^<[^<>]+>$/.test(arg)
    ? arg
    : `'${arg.replaceAll("'", "'\\''")}'`;
}

function selectedBy(agent: AgentAdapter): string {
  return agent.id === "command"
    ? 'any other `backend.command`, or `backend.agent = "command"`'
    : `\`backend.command = "${agent.id}"\` (or a path ending in \`/${agent.id}\`), or \`backend.agent = "${agent.id}"\``;
}

export function agentRows(): AgentRow[] {
  return AGENT_IDS.map((id) => {
    const agent = AGENTS[id];
    const command = id === "command" ? "<command>" : id;
    const argv = [command, ...agentArgs(agent, id === "command" ? ["<args…>"] : [])].map((a) =>
      a.replaceAll("{{TOOL_PATH}}", "<event tool>"),
    );
    const row: AgentRow = {
      agent: id,
      name: agent.name,
      selectedBy: selectedBy(agent),
      argv,
      promptVia: agent.promptMode === "stdin" ? "stdin" : "last argument",
      credentials: agent.credentials,
    };
    if (agent.npmPackage !== undefined) row.npmPackage = agent.npmPackage;
    return row;
  });
}

export function commandLine(row: AgentRow): string {
  const line = row.argv.map(quoteIfNeeded).join(" ");
  return row.promptVia === "stdin" ? `${line} < prompt` : `${line} <prompt>`;
}

/** The README's table, byte for byte. */
export function agentTableMarkdown(): string {
  const lines = [
    "| agent | chosen by | what the harness runs each iteration | credentials |",
    "|---|---|---|---|",
  ];
  for (const row of agentRows()) {
    const name = row.npmPackage ? `${row.name} (\`${row.npmPackage}\`)` : row.name;
    lines.push(`| ${name} | ${row.selectedBy} | \`${commandLine(row)}\` | ${row.credentials} |`);
  }
  return `${lines.join("\n")}\n`;
}
