// The scripted model behind the model server: what the "model" does at each step of one
// agent call, decided from the prompt the harness sent and what its tools answered so far.
// Each API module (anthropic.ts, openai.ts, gemini.ts) turns a request into a `Turn` and a
// `Step` back into that API's streamed response.

/** One step of the model: run one shell command through the CLI's shell tool, or answer. */
export type Step =
  | { kind: "shell"; command: string }
  | { kind: "answer"; text: string }
  /** Any other tool the CLI offers, by its name (Claude's Write, Gemini's write_file). */
  | { kind: "tool"; name: string; input: Record<string, unknown> }
  /** The API refuses the request: 401 (bad key), 429 (rate limit, with Retry-After), 402/403 quota. */
  | { kind: "fail"; status: number; message: string; retryAfterS?: number };

/**
 * What the model reports it used for one response (every API reports these). Input here is
 * the input not read from or written to the cache; the OpenAI and Gemini modules add the
 * cached part into their input totals, as those APIs count it.
 */
export interface Usage {
  input_tokens: number;
  output_tokens: number;
  cache_read_tokens: number;
  cache_write_tokens: number;
}

/** One request, as the script sees it. */
export interface Turn {
  api: "anthropic" | "openai" | "gemini";
  /** The harness's prompt: the first user message text that contains "Event tool:", else all user text. */
  prompt: string;
  /** The outputs of the shell commands this conversation ran so far, oldest first. */
  toolOutputs: string[];
  /** The model the CLI asked for. */
  model: string;
}

export type Script = (turn: Turn) => Step;

/** A request the server answered, kept for the test to inspect. */
export interface Exchange {
  api: Turn["api"];
  path: string;
  /** The main conversation (tools offered and an "Event tool:" prompt) or a side call (titles, checks). */
  main: boolean;
  step?: Step;
  usage: Usage;
}

/** The event tool's path, read from the prompt ("Event tool: <path>"). */
export function eventTool(prompt: string): string {
  const match = /^Event tool: (.+)$/m.exec(prompt);
  if (match === null) throw new Error("the prompt names no event tool");
  return match[1]!;
}

/** The roles the harness suggests this iteration ("Suggested next roles now: a, b"). */
export function suggestedRoles(prompt: string): string[] {
  const match = /^Suggested next roles now: (.+)$/m.exec(prompt);
  return match === null ? [] : match[1]!.split(/,\s*/).map((r) => r.trim());
}
