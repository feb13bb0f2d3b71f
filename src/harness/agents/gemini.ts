// Gemini CLI: its adapter (argv, refusals, prices, what lets it write) and its stream reader.
// Its `--output-format stream-json`: init, message (deltas), tool_use, tool_result and
// result events; the answer is the assistant text after the last tool call.
import { type AgentAdapter, INSTALL_HINT } from "./adapter.js";
import { flagValue, optionValue } from "./argv.js";
import {
  type AgentStream,
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

export class GeminiStream implements AgentStream {
  /** Assistant text not yet shown in the live log. */
  private text = "";
  /** The text after the last tool call, shown: the answer once the stream ends. */
  private answerText = "";
  private model = "";
  private result: Json | undefined;
  private error: StreamError | undefined;

  line(text: string): string | undefined {
    const event = parse(text.trim());
    if (event === undefined) return undefined;
    switch (event.type) {
      case "init":
        this.model = str(event.model) ?? "";
        return undefined;
      case "message":
        if (event.role !== "assistant") return undefined;
        this.text =
          event.delta === true
            ? this.text + (str(event.content) ?? "")
            : (str(event.content) ?? "");
        return undefined;
      case "tool_use": {
        const shown = this.flushText();
        this.answerText = "";
        const p = obj(event.parameters);
        const what = str(p?.command) ?? str(p?.file_path) ?? str(p?.absolute_path) ?? "";
        return [shown, `${str(event.tool_name) ?? "tool"}: ${oneLine(what)}`]
          .filter(Boolean)
          .join("\n");
      }
      case "tool_result": {
        if (event.status !== "error") return undefined;
        const err = obj(event.error);
        return `  refused: ${oneLine(str(err?.message) ?? str(event.output) ?? "error")}`;
      }
      case "error": {
        const message = str(event.message) ?? "error";
        if (event.severity === "error") this.error = this.errorOf(message);
        return `error: ${oneLine(message)}`;
      }
      case "result": {
        this.result = event;
        const err = obj(event.error);
        if (event.status === "error") this.error = this.errorOf(str(err?.message) ?? "error");
        return this.flushText() || undefined;
      }
      default:
        return undefined;
    }
  }

  private flushText(): string {
    const shown = this.text.trim() === "" ? "" : oneLine(this.text);
    this.answerText = this.text;
    this.text = "";
    return shown;
  }

  private errorOf(message: string): StreamError {
    const reason = reasonOfStatus(undefined, message);
    const retryAfter = /retry in ([0-9.]+\s*\w+)|"retryDelay":\s*"([^"]+)"/i.exec(message);
    const after = retryAfter?.[1] ?? retryAfter?.[2];
    return { message, ...(reason && { reason }), ...(after && { retryAfter: after }) };
  }

  report(): StreamReport {
    if (this.text !== "") this.flushText();
    const ok = this.result?.status === "success";
    return {
      answer: ok ? this.answerText : undefined,
      usage: this.usageOf(obj(this.result?.stats)),
      error: ok ? undefined : this.error,
    };
  }

  private usageOf(stats: Json | undefined): AgentUsage | undefined {
    if (stats === undefined) return undefined;
    const one = (model: string, m: Json | undefined): AgentUsage => {
      const cached = num(m?.cached);
      return {
        model,
        // `input_tokens` counts cached input too; `input` is what was not cached.
        input_tokens:
          m?.input !== undefined ? num(m.input) : Math.max(0, num(m?.input_tokens) - cached),
        output_tokens: num(m?.output_tokens),
        cache_read_tokens: cached,
        cache_write_tokens: 0,
      };
    };
    let usage: AgentUsage | undefined;
    for (const [model, m] of Object.entries(obj(stats.models) ?? {})) {
      const u = one(model, obj(m));
      usage = usage === undefined ? u : addUsage(usage, u);
    }
    return usage ?? one(this.model, stats);
  }
}

export const gemini: AgentAdapter<"gemini"> = {
  id: "gemini",
  name: "Gemini CLI",
  npmPackage: "@google/gemini-cli",
  mode: [],
  // A leading `-p` is claude's print mode in presets written for claude: the harness gives
  // gemini its prompt itself.
  modeAliases: ["-p"],
  modelFlags: ["--model", "-m"],
  replaced: { "--dangerously-skip-permissions": ["--approval-mode", "yolo"] },
  defaults: [
    {
      args: ["--approval-mode", "yolo"],
      unless: ["--approval-mode", "-y", "--yolo"],
      why: "tools run without asking",
    },
    {
      args: ["--skip-trust"],
      unless: [],
      why: "trusts the project folder (else approval falls back to default and edits stall)",
    },
    {
      args: ["--output-format", "stream-json"],
      unless: ["--output-format", "-o"],
      why: "events the harness reads: the answer, usage, errors",
    },
  ],
  stream: {
    selected: (args) => /^(stream-)?json$/.test(optionValue(args, ["--output-format", "-o"]) ?? ""),
    open: () => new GeminiStream(),
  },
  // Headless when stdin is not a terminal; `-p` is only needed for a prompt argument.
  promptMode: "stdin",
  promptArg: (prompt) => [`--prompt=${prompt}`],
  credentialEnv: ["GEMINI_API_KEY", "GOOGLE_API_KEY", "GOOGLE_GENAI_USE_VERTEXAI"],
  // No status command: the cheapest call there is, one short answer in read-only mode.
  credentialsCheck: {
    args: ["--approval-mode", "plan", "-p", "Reply with the word OK."],
    refused: (code, output) =>
      code === 41 || /please set an auth method|api key not valid/i.test(output),
  },
  exitCodes: { 41: "auth_failed" },
  failures: [
    {
      reason: "auth_failed",
      pattern: /invalid auth method selected/i,
      hint: 'Gemini CLI picked gateway auth because GOOGLE_GEMINI_BASE_URL is set, and gateway auth works only in ACP mode: keep GEMINI_API_KEY and add {"security": {"auth": {"selectedType": "gemini-api-key"}}} to ~/.gemini/settings.json of the user that runs the harness.',
    },
    { reason: "auth_failed", pattern: /please set an auth method|api key not valid/i },
    { reason: "quota_exhausted", pattern: /exhausted your daily quota/i },
    { reason: "rate_limited", pattern: /resource_exhausted|quota exceeded for quota metric/i },
  ],
  hints: {
    auth_failed:
      "Gemini CLI has no credentials for the user that runs the harness: set GEMINI_API_KEY (or GOOGLE_GENAI_USE_VERTEXAI with Vertex credentials) in its environment, e.g. the unit's EnvironmentFile, or log in once with `gemini` as that user.",
    quota_exhausted:
      "The Gemini daily quota is used up; the next scheduled run will try again after the reset.",
    rate_limited:
      "Gemini is rate limited; the run stopped and the next scheduled run will try again.",
    backend_failed: INSTALL_HINT("@google/gemini-cli", "gemini"),
  },
  credentials: "`GEMINI_API_KEY`, or Vertex AI variables",
  // An old override's trailing `-p` expected the prompt next: it selects nothing now.
  danglingPromptFlags: ["-p", "--prompt"],
  prices: {
    "gemini-3-pro": { input: 2, output: 12, cache_read: 0.2, cache_write: 0 },
    "gemini-2.5-pro": { input: 1.25, output: 10, cache_read: 0.125, cache_write: 0 },
    "gemini-2.5-flash-lite": { input: 0.1, output: 0.4, cache_read: 0.01, cache_write: 0 },
    "gemini-2.5-flash": { input: 0.3, output: 2.5, cache_read: 0.03, cache_write: 0 },
  },
  writesInProject: (args) => {
    if (args.includes("--yolo") || args.includes("-y")) return "--yolo";
    const mode = flagValue(args, "--approval-mode");
    if (mode === undefined) return "the harness's default --approval-mode yolo";
    return mode === "default" || mode === "plan" ? undefined : `--approval-mode ${mode}`;
  },
};
