// `codex exec --json`: JSONL of thread, turn and item events; the answer is the last agent
// message, the usage that of each completed turn (the model comes from codex's own config).
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
