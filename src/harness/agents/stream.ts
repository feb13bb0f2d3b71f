// Reads an agent CLI's machine-readable output (Claude's stream-json, `codex exec --json`,
// Gemini's stream-json): the answer the agent gave, the tokens it used, the error it hit, and
// one readable line per step for the live log. Whatever else the CLI prints (the prompt echo,
// banners, session ids, counters) never reaches the judge.
import type { AgentUsage } from "./usage.js";

/** Why an agent CLI failed, as the harness classifies it. */
export type AgentFailureReason =
  | "auth_failed"
  | "quota_exhausted"
  | "rate_limited"
  | "backend_failed";

/** An error the CLI reported in its stream, in its own words. */
export interface StreamError {
  message: string;
  /** When the stream says what kind (an HTTP status, an error type). */
  reason?: Exclude<AgentFailureReason, "backend_failed">;
  /** Seconds to wait, or a time, when the stream says. */
  retryAfter?: string;
}

export interface StreamReport {
  /** The agent's final answer; undefined when the stream held none. */
  answer: string | undefined;
  usage: AgentUsage | undefined;
  error: StreamError | undefined;
}

export interface AgentStream {
  /** One stdout line; returns the readable line for the live log, if any. */
  line(text: string): string | undefined;
  report(): StreamReport;
}

export type Json = Record<string, unknown>;

export function parse(text: string): Json | undefined {
  if (!text.startsWith("{")) return undefined;
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === "object" && value !== null && !Array.isArray(value)
      ? (value as Json)
      : undefined;
  } catch {
    return undefined;
  }
}

export const obj = (v: unknown): Json | undefined =>
  typeof v === "object" && v !== null && !Array.isArray(v) ? (v as Json) : undefined;
export const arr = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);
export const str = (v: unknown): string | undefined => (typeof v === "string" ? v : undefined);
export const num = (v: unknown): number =>
  typeof v === "number" && Number.isFinite(v) && v > 0 ? v : 0;

/** The first line of a text, cut for the live log. */
export function oneLine(text: string, max = 200): string {
  const first = text.trim().split("\n", 1)[0] ?? "";
  return first.length > max ? `${first.slice(0, max - 1)}…` : first;
}

/** An HTTP status or an API error type in a message, as a failure reason. */
export function reasonOfStatus(
  status: number | undefined,
  text: string,
): StreamError["reason"] | undefined {
  if (
    status === 401 ||
    status === 403 ||
    /\b(401|authentication_error|permission_error|UNAUTHENTICATED|PERMISSION_DENIED)\b/.test(text)
  )
    return "auth_failed";
  if (
    /insufficient_quota|exceeded your current quota|credit balance is too low|billing/i.test(text)
  )
    return "quota_exhausted";
  if (status === 429 || /\b(429|rate_limit_error|RESOURCE_EXHAUSTED|overloaded_error)\b/.test(text))
    return "rate_limited";
  return undefined;
}
