// Gemini CLI's `--output-format stream-json`: init, message (deltas), tool_use, tool_result and
// result events; the answer is the assistant text after the last tool call.
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
