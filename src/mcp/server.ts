// `autoloop-cron mcp`: the MCP server over stdio (the official SDK), so that Claude Code or
// any MCP client is the chat shell over the same control plane as the CLI.
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import type { CronConfig } from "../scheduler/config/config.js";
import { registerScheduleSecrets } from "../scheduler/schedules/env-file-secrets.js";
import { processRedactor } from "../util/secrets.js";
import { TOOLS } from "./tools.js";

export function createMcpServer(config: CronConfig, version: string): McpServer {
  // Tools quote runs (their journals, tasks, questions): the agents' keys are hidden again.
  registerScheduleSecrets(config);
  const server = new McpServer(
    { name: "autoloop-cron", version },
    {
      instructions:
        "autoloop-cron runs coding-agent loops on a schedule. Start with `status` (what needs a human) or `list_schedules`; `list_runs` and `replay_run` tell what past runs did; `fire_schedule`, `stop_run` and `ack_incident` act as the operator's CLI does.",
    },
  );
  for (const tool of TOOLS) {
    server.registerTool(
      tool.name,
      {
        title: tool.title,
        description: tool.description,
        inputSchema: tool.inputSchema,
        annotations: {
          title: tool.title,
          readOnlyHint: tool.readOnly,
          destructiveHint: tool.destructive ?? false,
          openWorldHint: false,
        },
      },
      async (args: Record<string, unknown>) => {
        try {
          const text = processRedactor.redact(await tool.run(args, config));
          return { content: [{ type: "text" as const, text }] };
        } catch (err) {
          // A tool error the model can read and act on, not a protocol error.
          const message = processRedactor.redact(err instanceof Error ? err.message : String(err));
          return { isError: true, content: [{ type: "text" as const, text: message }] };
        }
      },
    );
  }
  return server;
}

/** Serves until stdin closes. Nothing but protocol goes to stdout. */
export async function serveStdio(config: CronConfig, version: string): Promise<void> {
  const server = createMcpServer(config, version);
  const transport = new StdioServerTransport();
  const closed = new Promise<void>((resolve) => {
    transport.onclose = () => resolve();
    process.stdin.once("end", () => resolve());
  });
  await server.connect(transport);
  await closed;
  await server.close();
}
