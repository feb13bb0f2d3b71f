// Any other command: the prompt as its last argument, usage by AUTOLOOP_USAGE_FILE, no stream.
import type { AgentAdapter } from "./adapter.js";

export const command: AgentAdapter<"command"> = {
  id: "command",
  name: "any command",
  mode: [],
  modeAliases: [],
  defaults: [],
  promptMode: "arg",
  promptArg: (prompt) => [prompt],
  credentialEnv: [],
  failures: [],
  hints: {},
  credentials: "its own environment",
  usageByFile: true,
};
