// OpenAI Codex: its adapter (argv, login check, refusals, prices, what lets it write) and the
// reader of `codex exec --json`: JSONL of thread, turn and item events; the answer is the last agent
// message, the usage that of each completed turn (the model comes from codex's own config).
import { type AgentAdapter, INSTALL_HINT } from "./adapter.js";
import { flagValue } from "./argv.js";
import { codexModel, codexUsesOwnProvider } from "./codex-config.js";
import {
  type AgentStream,
  num,
  obj,
  oneLine,
  parse,
  reasonOfStatus,
  type StreamError,
  type StreamReport,
  str,
} from "./stream.js";
import { type AgentUsage, addUsage } from "./usage.js";

export class CodexStream implements AgentStream {
  private answer: string | undefined;
  private usage: AgentUsage | undefined;
  private error: StreamError | undefined;

  constructor(private readonly model: string) {}

  line(text: string): string | undefined {
    const event = parse(text.trim());
    if (event === undefined) return undefined;
    const item = obj(event.item);
    switch (event.type) {
      case "item.started":
        if (item?.type === "command_execution") return `$ ${oneLine(str(item.command) ?? "")}`;
        return undefined;
      case "item.completed":
        if (item?.type === "agent_message") {
          this.answer = str(item.text) ?? this.answer;
          return this.answer === undefined ? undefined : oneLine(this.answer);
        }
        if (item?.type === "command_execution") return `  exit ${String(item.exit_code ?? "?")}`;
        if (item?.type === "file_change") return "file change";
        if (item?.type === "error") return `warning: ${oneLine(str(item.message) ?? "")}`;
        return undefined;
      case "turn.completed": {
        const u = obj(event.usage);
        const cached = num(u?.cached_input_tokens);
        const written = num(u?.cache_write_input_tokens);
        const one: AgentUsage = {
          model: this.model,
          // OpenAI counts cached input inside input_tokens.
          input_tokens: Math.max(0, num(u?.input_tokens) - cached - written),
          output_tokens: num(u?.output_tokens),
          cache_read_tokens: cached,
          cache_write_tokens: written,
        };
        this.usage = this.usage === undefined ? one : addUsage(this.usage, one);
        this.error = undefined; // "Reconnecting..." errors the turn got past
        return undefined;
      }
      case "turn.failed":
      case "error": {
        const message = str(obj(event.error)?.message) ?? str(event.message) ?? "error";
        const reason = reasonOfStatus(undefined, message);
        const retryAfter = /try again in ([0-9.]+\s*\w+)/i.exec(message)?.[1];
        this.error = { message, ...(reason && { reason }), ...(retryAfter && { retryAfter }) };
        return `error: ${oneLine(message)}`;
      }
      default:
        return undefined;
    }
  }

  report(): StreamReport {
    return { answer: this.answer, usage: this.usage, error: this.error };
  }
}

export const codex: AgentAdapter<"codex"> = {
  id: "codex",
  name: "OpenAI Codex",
  npmPackage: "@openai/codex",
  mode: ["exec"],
  modeAliases: ["exec", "e"],
  modelFlags: ["--model", "-m"],
  defaults: [
    {
      args: ["--sandbox", "workspace-write"],
      unless: ["--sandbox", "-s", "--dangerously-bypass-approvals-and-sandbox"],
      why: "writes inside the project only; exec never asks for approval",
    },
    { args: ["--skip-git-repo-check"], unless: [], why: "runs outside a git repository too" },
    { args: ["--color", "never"], unless: ["--color"], why: "no escape codes in the journal" },
    {
      args: ["--json"],
      unless: ["--json", "--experimental-json"],
      why: "events the harness reads: the answer, usage, errors",
    },
  ],
  writableDir: (dir) => ["--add-dir", dir],
  stream: {
    selected: (args) => args.includes("--json") || args.includes("--experimental-json"),
    open: (args, env) => new CodexStream(codexModel(args, env)),
  },
  promptMode: "stdin",
  promptArg: (prompt) => ["--", prompt],
  replaced: {
    "--full-auto": ["--sandbox", "workspace-write"],
    // Claude's unattended flag, from presets written for claude (the public autoloop's).
    "--dangerously-skip-permissions": ["--dangerously-bypass-approvals-and-sandbox"],
  },
  credentialEnv: ["CODEX_API_KEY", "OPENAI_API_KEY"],
  credentialsCheck: {
    args: ["login", "status"],
    refused: (_code, output) => /not logged in/i.test(output),
    skip: codexUsesOwnProvider,
  },
  loginCheck: {
    args: ["login", "status"],
    loggedOut: /not logged in/i,
    // `login status` knows only OpenAI's own login: a provider from config.toml is not its.
    skip: codexUsesOwnProvider,
  },
  failures: [
    { reason: "auth_failed", pattern: /not logged in|401 unauthorized|missing bearer/i },
    {
      reason: "quota_exhausted",
      pattern: /insufficient_quota|exceeded your current quota|quota exceeded\. check your plan/i,
    },
    {
      reason: "rate_limited",
      pattern: /hit your usage limit|usage limit|429 too many requests/i,
    },
  ],
  hints: {
    auth_failed:
      "Codex is not logged in for the user that runs the harness: run `codex login` (or `codex login --device-auth` on a server) as that user, or set CODEX_API_KEY in its environment, e.g. the unit's EnvironmentFile.",
    quota_exhausted:
      "The OpenAI account's quota is used up: check the plan and billing; the next scheduled run will try again.",
    rate_limited:
      "Codex's usage limit is reached; the run stopped and the next scheduled run will try again.",
    backend_failed: INSTALL_HINT("@openai/codex", "codex"),
  },
  credentials: "`codex login` as the service user, or `CODEX_API_KEY`",
  prices: {
    "gpt-5.1-codex-mini": { input: 0.25, output: 2, cache_read: 0.025, cache_write: 0 },
    "gpt-5-codex-mini": { input: 0.25, output: 2, cache_read: 0.025, cache_write: 0 },
    "gpt-5-mini": { input: 0.25, output: 2, cache_read: 0.025, cache_write: 0 },
    "gpt-5-nano": { input: 0.05, output: 0.4, cache_read: 0.005, cache_write: 0 },
    "gpt-5": { input: 1.25, output: 10, cache_read: 0.125, cache_write: 0 },
    "gpt-4.1": { input: 2, output: 8, cache_read: 0.5, cache_write: 0 },
    "o4-mini": { input: 1.1, output: 4.4, cache_read: 0.275, cache_write: 0 },
    o3: { input: 2, output: 8, cache_read: 0.5, cache_write: 0 },
  },
  writesInProject: (args) => {
    if (args.includes("--dangerously-bypass-approvals-and-sandbox"))
      return "--dangerously-bypass-approvals-and-sandbox";
    const sandbox = flagValue(args, "--sandbox") ?? flagValue(args, "-s");
    if (sandbox === "read-only") return undefined;
    if (sandbox === "danger-full-access") return "--sandbox danger-full-access";
    const cd = flagValue(args, "--cd") ?? flagValue(args, "-C");
    return cd?.includes("{{STATE_DIR}}") ? undefined : "its workspace-write sandbox in the project";
  },
};
