// Claude Code's `--output-format stream-json --verbose` (or `json`: the result event alone):
// the answer, usage and cost from the result event, one live line per text or tool call.
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
