// The Gemini API (generativelanguage v1beta) as gemini-cli uses it through @google/genai:
// POST /v1beta/models/<model>:streamGenerateContent?alt=sse (SSE of GenerateContentResponse
// chunks), :generateContent (side calls: the model router, the next-speaker check, summaries,
// all asking for JSON by schema) and :countTokens. A request that offers the shell tool (or any
// tool, with an "Event tool:" prompt) is the main conversation and is answered by the script;
// anything else gets a canned answer (side calls still report ctx.usage, and the CLI counts it).
import type { ApiHandler, HandlerContext } from "./index.js";
import type { Step, Turn, Usage } from "./script.js";

const SHELL_TOOL = "run_shell_command";
const PATH = /^\/v1(?:alpha|beta)?\/models(?:\/([^/:]+)(?::([A-Za-z]+))?)?$/;

type Json = Record<string, unknown>;

function isRecord(value: unknown): value is Json {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function list(value: unknown): unknown[] {
  return Array.isArray(value) ? value : [];
}

function str(value: unknown): string | undefined {
  return typeof value === "string" ? value : undefined;
}

interface Part {
  text?: string;
  functionCall?: { name?: string; args?: unknown };
  functionResponse?: { name?: string; response?: unknown };
}

interface Content {
  role: string;
  parts: Part[];
}

function contents(body: unknown): Content[] {
  if (!isRecord(body)) return [];
  return list(body.contents).flatMap((c): Content[] => {
    if (!isRecord(c)) return [];
    const parts = list(c.parts).filter(isRecord) as Part[];
    return [{ role: str(c.role) ?? "user", parts }];
  });
}

function toolNames(body: unknown): string[] {
  if (!isRecord(body)) return [];
  return list(body.tools).flatMap((tool) =>
    isRecord(tool)
      ? list(tool.functionDeclarations).flatMap((d) => (isRecord(d) ? (str(d.name) ?? []) : []))
      : [],
  );
}

/**
 * The main conversation offers the shell tool; a read-only run (approval mode "default" with
 * no shell allowed) offers other tools only, so tools plus the harness's prompt also count.
 * Side calls (router, next-speaker check) offer no tools.
 */
function isMain(body: unknown, turn: Turn): boolean {
  const names = toolNames(body);
  return names.includes(SHELL_TOOL) || (names.length > 0 && turn.prompt.includes("Event tool:"));
}

const TRAILER = /\n(?:Error|Exit Code|Signal|Background PIDs|Process Group PGID): [^\n]*$/;

/**
 * A shell command's output as the shell tool reports it, unwrapped: the tool answers
 * {output: "<untrusted_context>\nOutput: hi\nExit Code: 1\nProcess Group PGID: 42\n</untrusted_context>"}.
 */
export function shellOutput(llmContent: string): string {
  let text = llmContent;
  const wrapped = /^<untrusted_context>\n([\s\S]*)\n<\/untrusted_context>$/.exec(text);
  if (wrapped !== null)
    text = wrapped[1]!.replaceAll("&lt;/untrusted_context&gt;", "</untrusted_context>");
  if (!text.startsWith("Output: ")) return text;
  text = text.slice("Output: ".length);
  for (let m = TRAILER.exec(text); m !== null; m = TRAILER.exec(text))
    text = text.slice(0, m.index);
  return text === "(empty)" ? "" : text;
}

/** A functionResponse's output: the shell tool answers {output: "..."} (or {error: "..."}). */
function responseOutput(response: unknown): string {
  if (isRecord(response)) {
    const output = str(response.output) ?? str(response.error);
    if (output !== undefined) return shellOutput(output);
  }
  return typeof response === "string" ? response : JSON.stringify(response ?? null);
}

export function turnOf(body: unknown, model: string): Turn {
  const all = contents(body);
  const userTexts = all
    .filter((c) => c.role === "user")
    .flatMap((c) => c.parts.flatMap((p) => (typeof p.text === "string" ? [p.text] : [])));
  const prompt = userTexts.find((t) => t.includes("Event tool:")) ?? userTexts.join("\n");
  const toolOutputs = all.flatMap((c) =>
    c.parts.flatMap((p) =>
      isRecord(p.functionResponse) ? [responseOutput(p.functionResponse.response)] : [],
    ),
  );
  return { api: "gemini", prompt, toolOutputs, model };
}

// Gemini counts cached input inside promptTokenCount.
function usageMetadata(usage: Usage): Json {
  const prompt = usage.input_tokens + usage.cache_read_tokens;
  return {
    promptTokenCount: prompt,
    cachedContentTokenCount: usage.cache_read_tokens,
    candidatesTokenCount: usage.output_tokens,
    totalTokenCount: prompt + usage.output_tokens,
  };
}

let callCounter = 0;

/** The model's parts for a shell, tool or answer step. */
function stepParts(step: Exclude<Step, { kind: "fail" }>): Json[] {
  if (step.kind === "answer") return [{ text: step.text }];
  callCounter += 1;
  if (step.kind === "tool")
    return [{ functionCall: { id: `call_${callCounter}`, name: step.name, args: step.input } }];
  return [
    {
      functionCall: {
        id: `call_${callCounter}`,
        name: SHELL_TOOL,
        args: { command: step.command, description: "Run a command." },
      },
    },
  ];
}

function response(parts: Json[], usage: Usage, model: string): Json {
  return {
    candidates: [{ content: { role: "model", parts }, finishReason: "STOP", index: 0 }],
    usageMetadata: usageMetadata(usage),
    modelVersion: model,
    responseId: `resp_${Date.now().toString(36)}`,
  };
}

const STATUS: Record<number, string> = {
  400: "INVALID_ARGUMENT",
  401: "UNAUTHENTICATED",
  402: "RESOURCE_EXHAUSTED",
  403: "PERMISSION_DENIED",
  404: "NOT_FOUND",
  429: "RESOURCE_EXHAUSTED",
  500: "INTERNAL",
  503: "UNAVAILABLE",
};

/** Google's error body, with a RetryInfo detail when the step asks the client to wait. */
function sendError(ctx: HandlerContext, step: Extract<Step, { kind: "fail" }>): void {
  const details: Json[] = [];
  const headers: Record<string, string> = { "content-type": "application/json; charset=UTF-8" };
  if (step.retryAfterS !== undefined) {
    details.push({
      "@type": "type.googleapis.com/google.rpc.RetryInfo",
      retryDelay: `${step.retryAfterS}s`,
    });
    headers["retry-after"] = String(step.retryAfterS);
  }
  const error: Json = {
    code: step.status,
    message: step.message,
    status: STATUS[step.status] ?? "UNKNOWN",
  };
  if (details.length > 0) error.details = details;
  ctx.res.writeHead(step.status, headers);
  ctx.res.end(JSON.stringify({ error }));
}

/** A JSON value that satisfies a (simple) JSON schema, for the side calls that ask for one. */
function fromSchema(schema: unknown, key = ""): unknown {
  if (!isRecord(schema)) return {};
  const type = str(schema.type)?.toLowerCase();
  const choices = list(schema.enum);
  if (key === "next_speaker") return "user";
  if (choices.length > 0) return choices[0];
  switch (type) {
    case "object": {
      const props = isRecord(schema.properties) ? schema.properties : {};
      return Object.fromEntries(Object.entries(props).map(([k, v]) => [k, fromSchema(v, k)]));
    }
    case "array":
      return [];
    case "boolean":
      return false;
    case "number":
    case "integer":
      // The router's numerical classifier wants a complexity_score in 1..100.
      return typeof schema.minimum === "number" ? schema.minimum : 1;
    default:
      return key === "" ? "ok" : `scripted ${key}`;
  }
}

/** The canned answer to a side call (router, next-speaker check, summaries, titles). */
function sideText(body: unknown): string {
  const config = isRecord(body) && isRecord(body.generationConfig) ? body.generationConfig : {};
  const schema = config.responseJsonSchema ?? config.responseSchema;
  if (schema !== undefined) return JSON.stringify(fromSchema(schema));
  if (config.responseMimeType === "application/json") return "{}";
  return "ok";
}

function sendJson(ctx: HandlerContext, status: number, value: unknown): void {
  ctx.res.writeHead(status, { "content-type": "application/json; charset=UTF-8" });
  ctx.res.end(JSON.stringify(value));
}

function sendSse(ctx: HandlerContext, parts: Json[], model: string): void {
  ctx.res.writeHead(200, {
    "content-type": "text/event-stream",
    "cache-control": "no-cache",
    connection: "keep-alive",
  });
  // Stream the text in two chunks the way the API does; usage rides on the last one.
  const chunks: Json[] = [];
  const first = parts[0];
  const text = first === undefined ? undefined : str(first.text);
  if (parts.length === 1 && text !== undefined && text.length > 1) {
    const half = Math.ceil(text.length / 2);
    chunks.push({
      candidates: [
        { content: { role: "model", parts: [{ text: text.slice(0, half) }] }, index: 0 },
      ],
      modelVersion: model,
    });
    chunks.push(response([{ text: text.slice(half) }], ctx.usage, model));
  } else {
    chunks.push(response(parts, ctx.usage, model));
  }
  for (const chunk of chunks) ctx.res.write(`data: ${JSON.stringify(chunk)}\r\n\r\n`);
  ctx.res.end();
}

export const gemini: ApiHandler = {
  matches(method, path) {
    return PATH.test(path) && (method === "POST" || method === "GET");
  },
  handle(ctx) {
    const path = ctx.url.split("?")[0]!;
    const [, model = "", action = ""] = PATH.exec(path) ?? [];
    const noUsage: Usage = {
      input_tokens: 0,
      output_tokens: 0,
      cache_read_tokens: 0,
      cache_write_tokens: 0,
    };

    if (ctx.method === "GET") {
      // Model metadata / listing: not part of a conversation.
      ctx.record({ api: "gemini", path, main: false, usage: noUsage });
      const info = (name: string) => ({
        name: `models/${name}`,
        inputTokenLimit: 1_048_576,
        outputTokenLimit: 65_536,
      });
      sendJson(ctx, 200, model === "" ? { models: [info("gemini-2.5-pro")] } : info(model));
      return;
    }

    if (action === "countTokens") {
      ctx.record({ api: "gemini", path, main: false, usage: noUsage });
      sendJson(ctx, 200, { totalTokens: ctx.usage.input_tokens });
      return;
    }

    if (action === "embedContent" || action === "batchEmbedContents") {
      ctx.record({ api: "gemini", path, main: false, usage: noUsage });
      const embedding = { values: [0.1, 0.2, 0.3] };
      sendJson(ctx, 200, action === "embedContent" ? { embedding } : { embeddings: [embedding] });
      return;
    }

    const stream = action === "streamGenerateContent";
    const turn = turnOf(ctx.body, model);
    if (!isMain(ctx.body, turn)) {
      // A side call: the router's classifier, the next-speaker check, a summary or a title.
      ctx.record({ api: "gemini", path, main: false, usage: ctx.usage });
      const parts = [{ text: sideText(ctx.body) }];
      if (stream) sendSse(ctx, parts, model);
      else sendJson(ctx, 200, response(parts, ctx.usage, model));
      return;
    }

    const step = ctx.script(turn);
    if (step.kind === "fail") {
      ctx.record({ api: "gemini", path, main: true, step, usage: noUsage });
      sendError(ctx, step);
      return;
    }
    ctx.record({ api: "gemini", path, main: true, step, usage: ctx.usage });
    const parts = stepParts(step);
    if (stream) sendSse(ctx, parts, model);
    else sendJson(ctx, 200, response(parts, ctx.usage, model));
  },
};
