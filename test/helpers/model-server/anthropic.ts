// The Anthropic Messages API as Claude Code uses it: POST /v1/messages?beta=true, streamed as
// server-sent events when the body asks for `stream: true`, else one JSON message. The main
// conversation (a request that offers the "Bash" tool and carries an "Event tool:" prompt) is
// answered by the script; side calls (titles, quota checks, summaries) get a short canned text.
import type { ServerResponse } from "node:http";
import type { ApiHandler, HandlerContext } from "./index.js";
import type { Step, Turn, Usage } from "./script.js";

/** A tool_use block for any of Claude Code's tools (Write, Edit, Read...). */
export type ToolStep = Extract<Step, { kind: "tool" }>;

type AnyStep = Step;

type ContentBlock =
  | { type: "text"; text: string }
  | { type: "tool_use"; id: string; name: string; input: Record<string, unknown> };

interface AnthropicUsage {
  input_tokens: number;
  output_tokens: number;
  cache_read_input_tokens: number;
  cache_creation_input_tokens: number;
}

const SIDE_ANSWER = "ok";

/**
 * A side call's canned text: "ok", or when the request asks for JSON output (the session title
 * call sends `output_config.format` with a JSON schema) an object giving each required
 * property "ok".
 */
function sideAnswer(body: Record<string, unknown>): string {
  const format = isRecord(body.output_config) ? body.output_config.format : undefined;
  if (!isRecord(format) || format.type !== "json_schema" || !isRecord(format.schema)) {
    return SIDE_ANSWER;
  }
  const answer: Record<string, string> = {};
  for (const key of asArray(format.schema.required)) {
    if (typeof key === "string") answer[key] = SIDE_ANSWER;
  }
  return JSON.stringify(answer);
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function asArray(value: unknown): unknown[] {
  return Array.isArray(value) ? value : [];
}

function isToolStep(step: AnyStep): step is ToolStep {
  return step.kind === "tool";
}

/** The text of a content value: a string, or the text blocks of a block list. */
function textOf(content: unknown): string[] {
  if (typeof content === "string") return [content];
  const texts: string[] = [];
  for (const block of asArray(content)) {
    if (isRecord(block) && block.type === "text" && typeof block.text === "string") {
      texts.push(block.text);
    }
  }
  return texts;
}

/** The user text blocks and tool results of a conversation, oldest first. */
function readConversation(messages: unknown[]): { userTexts: string[]; toolOutputs: string[] } {
  const userTexts: string[] = [];
  const toolOutputs: string[] = [];
  for (const message of messages) {
    if (!isRecord(message) || message.role !== "user") continue;
    if (typeof message.content === "string") {
      userTexts.push(message.content);
      continue;
    }
    for (const block of asArray(message.content)) {
      if (!isRecord(block)) continue;
      if (block.type === "text" && typeof block.text === "string") userTexts.push(block.text);
      if (block.type === "tool_result") toolOutputs.push(textOf(block.content).join("\n"));
    }
  }
  return { userTexts, toolOutputs };
}

function offersBash(body: Record<string, unknown>): boolean {
  return asArray(body.tools).some((tool) => isRecord(tool) && tool.name === "Bash");
}

function toAnthropicUsage(usage: Usage): AnthropicUsage {
  return {
    input_tokens: usage.input_tokens,
    output_tokens: usage.output_tokens,
    cache_read_input_tokens: usage.cache_read_tokens,
    cache_creation_input_tokens: usage.cache_write_tokens,
  };
}

const ERROR_TYPES: Record<number, string> = {
  400: "invalid_request_error",
  401: "authentication_error",
  402: "billing_error",
  403: "permission_error",
  404: "not_found_error",
  413: "request_too_large",
  429: "rate_limit_error",
  500: "api_error",
  529: "overloaded_error",
};

function errorType(status: number): string {
  return ERROR_TYPES[status] ?? (status >= 500 ? "api_error" : "invalid_request_error");
}

let nextId = 0;
function newId(prefix: string): string {
  nextId += 1;
  return `${prefix}_scripted${Date.now().toString(36)}${nextId.toString().padStart(6, "0")}`;
}

function blocksFor(step: AnyStep): { content: ContentBlock[]; stopReason: string } {
  if (isToolStep(step)) {
    return {
      content: [{ type: "tool_use", id: newId("toolu"), name: step.name, input: step.input }],
      stopReason: "tool_use",
    };
  }
  if (step.kind === "shell") {
    const input = { command: step.command, description: "Run the scripted command" };
    return {
      content: [{ type: "tool_use", id: newId("toolu"), name: "Bash", input }],
      stopReason: "tool_use",
    };
  }
  if (step.kind === "answer") {
    return { content: [{ type: "text", text: step.text }], stopReason: "end_turn" };
  }
  throw new Error("a failing step has no content");
}

function sendJson(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  res.writeHead(status, {
    "content-type": "application/json",
    "request-id": newId("req"),
    ...headers,
  });
  res.end(JSON.stringify(body));
}

function sendFailure(res: ServerResponse, step: Extract<Step, { kind: "fail" }>): void {
  const headers: Record<string, string> = {};
  if (step.retryAfterS !== undefined) headers["retry-after"] = String(step.retryAfterS);
  if (step.status === 429) headers["x-should-retry"] = "true";
  sendJson(
    res,
    step.status,
    { type: "error", error: { type: errorType(step.status), message: step.message } },
    headers,
  );
}

function sendMessage(
  res: ServerResponse,
  stream: boolean,
  model: string,
  content: ContentBlock[],
  stopReason: string,
  usage: AnthropicUsage,
): void {
  const id = newId("msg");
  if (!stream) {
    sendJson(res, 200, {
      id,
      type: "message",
      role: "assistant",
      model,
      content,
      stop_reason: stopReason,
      stop_sequence: null,
      usage,
    });
    return;
  }
  res.writeHead(200, {
    "content-type": "text/event-stream",
    "cache-control": "no-cache",
    "request-id": newId("req"),
  });
  const send = (event: string, data: Record<string, unknown>): void => {
    res.write(`event: ${event}\ndata: ${JSON.stringify({ type: event, ...data })}\n\n`);
  };
  send("message_start", {
    message: {
      id,
      type: "message",
      role: "assistant",
      model,
      content: [],
      stop_reason: null,
      stop_sequence: null,
      usage: { ...usage, output_tokens: 1 },
    },
  });
  send("ping", {});
  content.forEach((block, index) => {
    if (block.type === "text") {
      send("content_block_start", { index, content_block: { type: "text", text: "" } });
      send("content_block_delta", { index, delta: { type: "text_delta", text: block.text } });
    } else {
      send("content_block_start", {
        index,
        content_block: { type: "tool_use", id: block.id, name: block.name, input: {} },
      });
      send("content_block_delta", {
        index,
        delta: { type: "input_json_delta", partial_json: JSON.stringify(block.input) },
      });
    }
    send("content_block_stop", { index });
  });
  send("message_delta", { delta: { stop_reason: stopReason, stop_sequence: null }, usage });
  send("message_stop", {});
  res.end();
}

function handleMessages(ctx: HandlerContext, path: string): void {
  const body = isRecord(ctx.body) ? ctx.body : {};
  const model = typeof body.model === "string" ? body.model : "";
  const usage = toAnthropicUsage(ctx.usage);
  const { userTexts, toolOutputs } = readConversation(asArray(body.messages));
  const eventPrompt = userTexts.find((text) => text.includes("Event tool:"));
  const main = eventPrompt !== undefined && offersBash(body);

  if (!main) {
    ctx.record({ api: "anthropic", path, main: false, usage: ctx.usage });
    const content: ContentBlock[] = [{ type: "text", text: sideAnswer(body) }];
    sendMessage(ctx.res, body.stream === true, model, content, "end_turn", usage);
    return;
  }

  const turn: Turn = { api: "anthropic", prompt: eventPrompt, toolOutputs, model };
  const step: AnyStep = ctx.script(turn);
  ctx.record({ api: "anthropic", path, main: true, step: step as Step, usage: ctx.usage });
  if (!isToolStep(step) && step.kind === "fail") {
    sendFailure(ctx.res, step);
    return;
  }
  const { content, stopReason } = blocksFor(step);
  sendMessage(ctx.res, body.stream === true, model, content, stopReason, usage);
}

export const anthropic: ApiHandler = {
  matches(method, path) {
    if (path === "/" && (method === "HEAD" || method === "GET")) return true;
    return method === "POST" && (path === "/v1/messages" || path === "/v1/messages/count_tokens");
  },
  handle(ctx) {
    const path = ctx.url.split("?")[0]!;
    if (path === "/") {
      // Claude Code probes the base URL (HEAD /) before its first request.
      ctx.res.writeHead(200, { "content-type": "text/plain" });
      ctx.res.end(ctx.method === "HEAD" ? undefined : "ok");
      return;
    }
    if (path === "/v1/messages/count_tokens") {
      ctx.record({ api: "anthropic", path, main: false, usage: ctx.usage });
      sendJson(ctx.res, 200, { input_tokens: ctx.usage.input_tokens });
      return;
    }
    handleMessages(ctx, path);
  },
};
