// Claude Code: its adapter (argv, login, refusals, prices, spend cap, what lets it write) and the
// reader of its `--output-format stream-json --verbose` (or `json`: the result event alone):
// the answer, usage and cost from the result event, one live line per text or tool call.
import { type AgentAdapter, INSTALL_HINT } from "./adapter.js";
import { flagValue, optionValue } from "./argv.js";
import {
  type AgentStream,
  arr,
  type Json,
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

export class ClaudeStream implements AgentStream {
  private result: Json | undefined;
  private lastText: string | undefined;
  private model = "";
  private retry: StreamError | undefined;

  line(text: string): string | undefined {
    const event = parse(text.trim());
    if (event === undefined) return text.trim() === "" ? undefined : text;
    // `--output-format json` prints the result alone, or an array of every event.
    switch (event.type) {
      case "system":
        if (event.subtype === "init") this.model = str(event.model) ?? this.model;
        if (event.subtype === "api_retry") {
          const status = typeof event.error_status === "number" ? event.error_status : undefined;
          const message = `API error ${status ?? ""} ${str(event.error) ?? ""}`.trim();
          const reason = reasonOfStatus(status, message);
          this.retry = { message, ...(reason && { reason }) };
          return `retrying after ${message} (attempt ${num(event.attempt)})`;
        }
        return undefined;
      case "assistant": {
        const message = obj(event.message);
        this.model = str(message?.model) ?? this.model;
        const shown: string[] = [];
        for (const block of arr(message?.content)) {
          const b = obj(block);
          if (b?.type === "text" && typeof b.text === "string") {
            this.lastText = b.text;
            if (b.text.trim() !== "") shown.push(oneLine(b.text));
          } else if (b?.type === "tool_use") {
            const input = obj(b.input);
            const what = str(input?.command) ?? str(input?.file_path) ?? str(input?.pattern) ?? "";
            shown.push(`${str(b.name) ?? "tool"}: ${oneLine(what)}`);
          }
        }
        return shown.length > 0 ? shown.join("\n") : undefined;
      }
      case "user": {
        // Tool results: only the ones that failed are news (a denied permission, an error).
        const failed = arr(obj(event.message)?.content)
          .map(obj)
          .filter((b) => b?.type === "tool_result" && b.is_error === true)
          .map(
            (b) => `  refused: ${oneLine(typeof b?.content === "string" ? b.content : "error")}`,
          );
        return failed.length > 0 ? failed.join("\n") : undefined;
      }
      case "result":
        this.result = event;
        return undefined;
      default:
        return undefined;
    }
  }

  report(): StreamReport {
    const r = this.result;
    if (r === undefined) return { answer: this.lastText, usage: undefined, error: this.retry };
    const answer = str(r.result);
    const errors = arr(r.errors).filter((e): e is string => typeof e === "string");
    const status = typeof r.api_error_status === "number" ? r.api_error_status : undefined;
    const error: StreamError | undefined =
      r.is_error === true
        ? this.errorOf(answer ?? (errors.join("; ") || (str(r.subtype) ?? "error")), status)
        : undefined;
    return {
      answer: r.is_error === true ? undefined : (answer ?? this.lastText),
      usage: this.usageOf(r),
      error,
    };
  }

  private errorOf(message: string, status?: number): StreamError {
    const reason = reasonOfStatus(status, message) ?? this.retry?.reason;
    return { message, ...(reason && { reason }) };
  }

  private usageOf(r: Json): AgentUsage | undefined {
    const perModel = obj(r.modelUsage);
    let usage: AgentUsage | undefined;
    for (const [id, value] of Object.entries(perModel ?? {})) {
      const model = id.replace(/\[[^\]]*\]$/, "");
      const m = obj(value);
      const one: AgentUsage = {
        model,
        input_tokens: num(m?.inputTokens),
        output_tokens: num(m?.outputTokens),
        cache_read_tokens: num(m?.cacheReadInputTokens),
        cache_write_tokens: num(m?.cacheCreationInputTokens),
        cost_usd: num(m?.costUSD),
      };
      usage = usage === undefined ? one : addUsage(usage, one);
    }
    const u = obj(r.usage);
    if (usage === undefined && u !== undefined)
      usage = {
        model: this.model,
        input_tokens: num(u.input_tokens),
        output_tokens: num(u.output_tokens),
        cache_read_tokens: num(u.cache_read_input_tokens),
        cache_write_tokens: num(u.cache_creation_input_tokens),
      };
    if (usage !== undefined && typeof r.total_cost_usd === "number")
      usage.cost_usd = r.total_cost_usd;
    return usage;
  }
}

export const claude: AgentAdapter<"claude"> = {
  id: "claude",
  name: "Claude Code",
  npmPackage: "@anthropic-ai/claude-code",
  mode: ["-p"],
  modeAliases: ["-p", "--print"],
  modelFlags: ["--model"],
  defaults: [
    {
      args: ["--output-format", "stream-json", "--verbose"],
      unless: ["--output-format"],
      why: "events the harness reads: the answer, usage and cost, errors",
    },
    {
      args: ["--permission-mode", "acceptEdits"],
      unless: [
        "--permission-mode",
        "--dangerously-skip-permissions",
        "--allow-dangerously-skip-permissions",
      ],
      why: "edits without asking (bypassPermissions is refused as root)",
    },
    {
      args: ["--allowedTools", "Bash({{TOOL_PATH}} *)"],
      unless: [],
      why: "the event tool may always run (added to any --allowedTools of the preset)",
    },
  ],
  promptMode: "stdin",
  promptArg: (prompt) => ["--", prompt],
  stream: {
    selected: (args) => /^(stream-)?json$/.test(optionValue(args, ["--output-format"]) ?? ""),
    open: () => new ClaudeStream(),
  },
  credentialEnv: ["ANTHROPIC_API_KEY", "CLAUDE_CODE_OAUTH_TOKEN", "ANTHROPIC_AUTH_TOKEN"],
  // `auth status` prints {"loggedIn": false, ...} and exits 1 without a login that works.
  credentialsCheck: {
    args: ["auth", "status"],
    refused: (code, output) => code !== 0 && /"loggedIn"\s*:\s*false|not logged in/i.test(output),
  },
  failures: [
    { reason: "auth_failed", pattern: /not logged in|please run \/login|invalid api key/i },
    { reason: "quota_exhausted", pattern: /credit balance is too low/i },
    {
      reason: "rate_limited",
      pattern: /usage limit reached|you've hit your limit|\b5-hour limit|weekly limit/i,
    },
  ],
  hints: {
    auth_failed:
      "Claude Code is not logged in for the user that runs the harness: run `claude /login` as that user (the service user under systemd), or set ANTHROPIC_API_KEY (or CLAUDE_CODE_OAUTH_TOKEN from `claude setup-token`) in its environment, e.g. the unit's EnvironmentFile.",
    quota_exhausted:
      "The Anthropic account has no credit left: add credit in the Console or switch the key; the next scheduled run will try again.",
    rate_limited:
      "Claude's usage limit is reached; the run stopped and the next scheduled run will try again (move the schedule past the reset time if this repeats).",
    backend_failed: INSTALL_HINT("@anthropic-ai/claude-code", "claude"),
  },
  credentials:
    "`claude /login` as the service user, or `ANTHROPIC_API_KEY` / `CLAUDE_CODE_OAUTH_TOKEN`",
  spendCap: (usd) => ["--max-budget-usd", usd.toFixed(4)],
  prices: {
    "claude-opus-4-5": { input: 5, output: 25, cache_read: 0.5, cache_write: 6.25 },
    "claude-opus-4": { input: 15, output: 75, cache_read: 1.5, cache_write: 18.75 },
    "claude-sonnet-4": { input: 3, output: 15, cache_read: 0.3, cache_write: 3.75 },
    "claude-3-7-sonnet": { input: 3, output: 15, cache_read: 0.3, cache_write: 3.75 },
    "claude-haiku-4-5": { input: 1, output: 5, cache_read: 0.1, cache_write: 1.25 },
    "claude-3-5-haiku": { input: 0.8, output: 4, cache_read: 0.08, cache_write: 1 },
  },
  writesInProject,
};

/** Tools Claude may use on any path when named bare (`Bash`, not `Bash(git log *)`). */
const CLAUDE_WRITING_TOOLS = new Set(["Bash", "Write", "Edit", "MultiEdit", "NotebookEdit"]);

function writesInProject(args: readonly string[]): string | undefined {
  if (args.includes("--dangerously-skip-permissions")) return "--dangerously-skip-permissions";
  const mode = flagValue(args, "--permission-mode");
  if (mode === undefined) return "the harness's default --permission-mode acceptEdits";
  if (mode !== "default" && mode !== "plan") return `--permission-mode ${mode}`;
  const tools = (flagValue(args, "--allowedTools") ?? "").split(/[,\s]+/);
  const bare = tools.find((t) => CLAUDE_WRITING_TOOLS.has(t));
  return bare === undefined ? undefined : `--allowedTools ${bare} (on any path)`;
}
