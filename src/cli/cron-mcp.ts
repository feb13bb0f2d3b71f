// `autoloop-cron mcp`: the MCP server on stdin/stdout, for Claude Code or any MCP client.
import { serveStdio } from "../mcp/server.js";
import { TOOLS } from "../mcp/tools.js";
import { configOf, parseCron } from "./cron-common.js";
import { packageVersion } from "./version.js";

const HELP = `Usage: autoloop-cron mcp [--config FILE]

Serves the Model Context Protocol over stdio, so a chat agent can ask what ran, what
failed and what needs a human, and act as the CLI does. Tools:
${TOOLS.map((t) => `  ${t.name.padEnd(16)}${t.title}${t.readOnly ? "" : " (changes state)"}`).join("\n")}

fire_schedule needs a running daemon (autoloop-cron start); the others read the files
under state_dir and work with or without one. Logs go to stderr; stdout is the protocol.

Claude Code:
  claude mcp add autoloop-cron -- autoloop-cron mcp --config /path/to/autoloop-cron.toml
`;

export async function mcpCommand(argv: string[]): Promise<number> {
  const p = parseCron(argv, { name: "mcp", help: HELP });
  if (p === undefined) return 0;
  await serveStdio(configOf(p), packageVersion());
  return 0;
}
