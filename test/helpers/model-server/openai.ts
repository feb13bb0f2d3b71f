// The OpenAI Responses API as the codex CLI uses it: POST /v1/responses streamed as SSE
// (response.created, response.output_item.added/done, response.output_text.delta,
// response.completed with usage), and GET /v1/models answered with an empty list.
// A `shell` step becomes a call to whichever shell tool the request offers: `exec_command`
// ({cmd}), `shell_command` ({command: string}), `shell` ({command: argv}) or `local_shell`.
import type { ServerResponse } from "node:http";
import type { ApiHandler, HandlerContext, Step, Turn, Usage } from "./index.js";

type Json = Record<string, unknown>;

function isObject(value: unknown): value is Json {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function stringField(value: Json, key: string): string | undefined {
  const field = value[key];
  return typeof field === "string" ? field : undefined;
}

function arrayField(value: Json, key: string): unknown[] {
  const field = value[key];
  return Array.isArray(field) ? field : [];
}

/** The text of a message's content: a string, or the `text` of each content part. */
function contentText(content: unknown): string[] {
  if (typeof content === "string") return [content];
  if (!Array.isArray(content)) return [];
  const texts: string[] = [];
  for (const part of content) {
    if (typeof part === "string") texts.push(part);
    else if (isObject(part)) {
      const text = stringField(part, "text");
      if (text !== undefined) texts.push(text);
    }
  }
  return texts;
}

/** A tool output item's text: a string, or content parts (`[{type: "input_text", text}]`). */
function outputText(output: unknown): string {
  if (typeof output === "string") return output;
  if (isObject(output)) {
    const content = output.content;
    if (typeof content === "string") return content;
    return contentText(content).join("");
  }
  return contentText(output).join("");
}

const TOOL_OUTPUT_TYPES = new Set([
  "function_call_output",
  "custom_tool_call_output",
  "local_shell_call_output",
]);

/** Codex's own context blocks in user messages, not the harness's prompt. */
const INJECTED_USER_TEXT = /^\s*<(environment_context|user_instructions|turn_aborted)>/;

/** The shell tools codex may offer, in order of preference. */
type ShellTool = "exec_command" | "shell_command" | "shell" | "local_shell";

function shellToolOf(tools: unknown[]): ShellTool | undefined {
  const offered = new Set<string>();
  for (const tool of tools) {
    if (!isObject(tool)) continue;
    const type = stringField(tool, "type");
    if (type === "local_shell") offered.add("local_shell");
    else {
      const name = stringField(tool, "name");
      if (name !== undefined) offered.add(name);
    }
  }
  const preference: ShellTool[] = ["exec_command", "shell_command", "shell", "local_shell"];
  return preference.find((name) => offered.has(name));
}

export interface OpenAiRequest {
  turn: Turn;
  /** The shell tool the request offers; a request with none is a side call. */
  shellTool: ShellTool | undefined;
}

/** Reads a Responses API request body into the script's `Turn`. */
export function parseRequest(body: unknown): OpenAiRequest {
  const request = isObject(body) ? body : {};
  const userTexts: string[] = [];
  const toolOutputs: string[] = [];
  for (const item of arrayField(request, "input")) {
    if (!isObject(item)) continue;
    const type = stringField(item, "type") ?? "message";
    if (type === "message" && stringField(item, "role") === "user") {
      for (const text of contentText(item.content)) {
        if (!INJECTED_USER_TEXT.test(text)) userTexts.push(text);
      }
    } else if (TOOL_OUTPUT_TYPES.has(type)) {
      toolOutputs.push(outputText(item.output));
    }
  }
  const withEventTool = userTexts.find((text) => text.includes("Event tool:"));
  return {
    turn: {
      api: "openai",
      prompt: withEventTool ?? userTexts.join("\n"),
      toolOutputs,
      model: stringField(request, "model") ?? "",
    },
    shellTool: shellToolOf(arrayField(request, "tools")),
  };
}

/** OpenAI's error `type` and `code` for a refusal: a bad key, a rate limit or a spent quota. */
function errorKind(status: number, message: string): { type: string; code: string | null } {
  if (status === 401) return { type: "invalid_request_error", code: "invalid_api_key" };
  if (status === 402 || status === 403 || (status === 429 && /quota/i.test(message))) {
    return { type: "insufficient_quota", code: "insufficient_quota" };
  }
  // ChatGPT-plan limits: codex prints "You've hit your usage limit ..." for this type.
  if (status === 429 && /usage limit/i.test(message))
    return { type: "usage_limit_reached", code: null };
  if (status === 429) return { type: "requests", code: "rate_limit_exceeded" };
  return { type: "server_error", code: null };
}

function errorBody(step: Extract<Step, { kind: "fail" }>): Json {
  const kind = errorKind(step.status, step.message);
  const resets =
    kind.type === "usage_limit_reached" && step.retryAfterS !== undefined
      ? {
          resets_in_seconds: step.retryAfterS,
          resets_at: Math.floor(Date.now() / 1000) + step.retryAfterS,
        }
      : {};
  return { error: { message: step.message, param: null, ...kind, ...resets } };
}

function sendFailure(res: ServerResponse, step: Extract<Step, { kind: "fail" }>): void {
  const headers: Record<string, string> = { "content-type": "application/json" };
  if (step.retryAfterS !== undefined) headers["retry-after"] = String(step.retryAfterS);
  res.writeHead(step.status, headers);
  res.end(JSON.stringify(errorBody(step)));
}

// OpenAI counts cached (and cache-written) input inside input_tokens.
function usageJson(usage: Usage): Json {
  const input = usage.input_tokens + usage.cache_read_tokens + usage.cache_write_tokens;
  return {
    input_tokens: input,
    input_tokens_details: {
      cached_tokens: usage.cache_read_tokens,
      cache_write_tokens: usage.cache_write_tokens,
    },
    output_tokens: usage.output_tokens,
    output_tokens_details: { reasoning_tokens: 0 },
    total_tokens: input + usage.output_tokens,
  };
}

let counter = 0;
function nextId(prefix: string): string {
  counter += 1;
  return `${prefix}_${Date.now().toString(36)}${counter}`;
}

/** The output item for a shell command, in the form the offered tool expects. */
/** A call of any other function tool codex offers (apply_patch, update_plan...). */
function toolItem(name: string, input: Record<string, unknown>): Json {
  return {
    type: "function_call",
    id: nextId("fc"),
    call_id: nextId("call"),
    name,
    arguments: JSON.stringify(input),
    status: "completed",
  };
}

function shellItem(tool: ShellTool, command: string): Json {
  const callId = nextId("call");
  const id = nextId("fc");
  if (tool === "local_shell") {
    return {
      type: "local_shell_call",
      id,
      call_id: callId,
      status: "completed",
      action: { type: "exec", command: ["bash", "-lc", command], env: {} },
    };
  }
  const args =
    tool === "exec_command"
      ? { cmd: command }
      : tool === "shell_command"
        ? { command }
        : { command: ["bash", "-lc", command] };
  return {
    type: "function_call",
    id,
    call_id: callId,
    name: tool,
    arguments: JSON.stringify(args),
    status: "completed",
  };
}

function messageItem(text: string): Json {
  return {
    type: "message",
    id: nextId("msg"),
    role: "assistant",
    status: "completed",
    content: [{ type: "output_text", text, annotations: [] }],
  };
}

/** Streams one response holding `item` the way the Responses API streams it. */
function streamResponse(res: ServerResponse, model: string, item: Json, usage: Usage): void {
  const responseId = nextId("resp");
  const createdAt = Math.floor(Date.now() / 1000);
  const response = (status: string, output: Json[], withUsage: boolean): Json => ({
    id: responseId,
    object: "response",
    created_at: createdAt,
    status,
    model,
    output,
    ...(withUsage ? { usage: usageJson(usage) } : {}),
  });
  res.writeHead(200, {
    "content-type": "text/event-stream",
    "cache-control": "no-cache",
    connection: "keep-alive",
  });
  let sequence = 0;
  const send = (type: string, data: Json): void => {
    res.write(
      `event: ${type}\ndata: ${JSON.stringify({ type, sequence_number: sequence, ...data })}\n\n`,
    );
    sequence += 1;
  };
  send("response.created", { response: response("in_progress", [], false) });
  send("response.in_progress", { response: response("in_progress", [], false) });
  const itemId = stringField(item, "id") ?? "";
  if (item.type === "message") {
    const text = contentText(item.content).join("");
    send("response.output_item.added", {
      output_index: 0,
      item: { ...item, status: "in_progress", content: [] },
    });
    send("response.content_part.added", {
      output_index: 0,
      item_id: itemId,
      content_index: 0,
      part: { type: "output_text", text: "", annotations: [] },
    });
    send("response.output_text.delta", {
      output_index: 0,
      item_id: itemId,
      content_index: 0,
      delta: text,
    });
    send("response.output_text.done", { output_index: 0, item_id: itemId, content_index: 0, text });
    send("response.content_part.done", {
      output_index: 0,
      item_id: itemId,
      content_index: 0,
      part: { type: "output_text", text, annotations: [] },
    });
  } else if (item.type === "function_call") {
    const args = stringField(item, "arguments") ?? "";
    send("response.output_item.added", {
      output_index: 0,
      item: { ...item, status: "in_progress", arguments: "" },
    });
    send("response.function_call_arguments.delta", {
      output_index: 0,
      item_id: itemId,
      delta: args,
    });
    send("response.function_call_arguments.done", {
      output_index: 0,
      item_id: itemId,
      arguments: args,
    });
  } else {
    send("response.output_item.added", {
      output_index: 0,
      item: { ...item, status: "in_progress" },
    });
  }
  send("response.output_item.done", { output_index: 0, item });
  send("response.completed", { response: response("completed", [item], true) });
  res.end();
}

const SIDE_CALL_ANSWER = "OK";

async function handleResponses(ctx: HandlerContext): Promise<void> {
  const path = ctx.url.split("?")[0]!;
  const { turn, shellTool } = parseRequest(ctx.body);
  if (shellTool === undefined) {
    ctx.record({ api: "openai", path, main: false, usage: ctx.usage });
    streamResponse(ctx.res, turn.model, messageItem(SIDE_CALL_ANSWER), ctx.usage);
    return;
  }
  const step = ctx.script(turn);
  ctx.record({ api: "openai", path, main: true, step, usage: ctx.usage });
  if (step.kind === "fail") {
    sendFailure(ctx.res, step);
    return;
  }
  const item =
    step.kind === "shell"
      ? shellItem(shellTool, step.command)
      : step.kind === "tool"
        ? toolItem(step.name, step.input)
        : messageItem(step.text);
  streamResponse(ctx.res, turn.model, item, ctx.usage);
}

function handleModels(ctx: HandlerContext): void {
  ctx.record({ api: "openai", path: ctx.url.split("?")[0]!, main: false, usage: ctx.usage });
  ctx.res.writeHead(200, { "content-type": "application/json" });
  // The public API's list shape, and codex's own `{models}` shape: an empty list in both.
  ctx.res.end(JSON.stringify({ object: "list", data: [], models: [] }));
}

export const openai: ApiHandler = {
  matches(method, path) {
    return (
      (method === "POST" && /\/responses$/.test(path)) ||
      (method === "GET" && /\/models$/.test(path))
    );
  },
  handle(ctx) {
    return ctx.method === "GET" ? handleModels(ctx) : handleResponses(ctx);
  },
};
