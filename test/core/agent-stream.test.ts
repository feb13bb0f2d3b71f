// The readers of the CLIs' event streams, fed the lines the real CLIs printed against the
// scripted model server (test/fixtures/streams/, captured from claude 2.1, codex 0.169 and
// gemini 0.61): the answer, the usage and the error each one reports.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { ClaudeStream } from "../../src/harness/agents/claude.js";
import { CodexStream } from "../../src/harness/agents/codex.js";
import { GeminiStream } from "../../src/harness/agents/gemini.js";
import type { AgentStream } from "../../src/harness/agents/stream.js";
import { ROOT } from "../helpers/cli.js";

function feed(stream: AgentStream, fixture: string): string[] {
  const text = readFileSync(join(ROOT, "test/fixtures/streams", fixture), "utf8");
  const shown: string[] = [];
  for (const line of text.split("\n")) {
    const live = stream.line(line);
    if (live !== undefined) shown.push(live);
  }
  return shown;
}

describe("Claude Code's stream-json", () => {
  it("gives the result's answer, its own cost and the tokens per model", () => {
    const stream = new ClaudeStream();
    const shown = feed(stream, "claude-answer.jsonl");
    expect(shown).toContain("Bash: echo hi");
    expect(stream.report()).toEqual({
      answer: "done",
      error: undefined,
      usage: {
        model: "claude-opus-4-8",
        input_tokens: 2400,
        output_tokens: 160,
        cache_read_tokens: 600,
        cache_write_tokens: 100,
        cost_usd: expect.closeTo(0.016925, 9),
      },
    });
  });

  it("reports an API refusal with its status, and no answer", () => {
    const refused = new ClaudeStream();
    feed(refused, "claude-401.jsonl");
    expect(refused.report().answer).toBeUndefined();
    expect(refused.report().error).toMatchObject({ reason: "auth_failed" });
    const limited = new ClaudeStream();
    feed(limited, "claude-429.jsonl");
    expect(limited.report().error).toEqual({
      message: "API Error: Request rejected (429) · rate limited",
      reason: "rate_limited",
    });
  });

  it("reports a budget stop, which has no result text, by its errors", () => {
    const stream = new ClaudeStream();
    feed(stream, "claude-budget.jsonl");
    const report = stream.report();
    expect(report.answer).toBeUndefined();
    expect(report.error?.message).toMatch(/budget/i);
    expect(report.usage?.cost_usd).toBeCloseTo(0.0084625);
  });

  it("falls back to the last text when the stream ends without a result", () => {
    const stream = new ClaudeStream();
    stream.line(
      JSON.stringify({
        type: "assistant",
        message: { model: "claude-sonnet-4-5", content: [{ type: "text", text: "halfway" }] },
      }),
    );
    stream.line("not json at all");
    expect(stream.report()).toEqual({ answer: "halfway", usage: undefined, error: undefined });
  });
});

describe("codex exec --json", () => {
  it("gives the last agent message and the turn's usage, cached input apart", () => {
    const stream = new CodexStream("gpt-5-codex");
    const shown = feed(stream, "codex-answer.jsonl");
    expect(shown.some((l) => l.startsWith("$ "))).toBe(true);
    const report = stream.report();
    expect(report.answer).toBe("done");
    expect(report.error).toBeUndefined();
    expect(report.usage?.model).toBe("gpt-5-codex");
    expect(report.usage?.cache_read_tokens).toBeGreaterThan(0);
  });

  it("classifies turn.failed: 401, 429 and a spent quota", () => {
    const reasons = ["codex-401.jsonl", "codex-429.jsonl", "codex-quota.jsonl"].map((f) => {
      const stream = new CodexStream("");
      feed(stream, f);
      return stream.report().error?.reason;
    });
    expect(reasons).toEqual(["auth_failed", "rate_limited", "quota_exhausted"]);
  });

  it("forgets a reconnect error once the turn completes", () => {
    const stream = new CodexStream("");
    stream.line(JSON.stringify({ type: "error", message: "Reconnecting... 1/5" }));
    stream.line(
      JSON.stringify({ type: "item.completed", item: { type: "agent_message", text: "ok" } }),
    );
    stream.line(
      JSON.stringify({ type: "turn.completed", usage: { input_tokens: 10, output_tokens: 2 } }),
    );
    expect(stream.report().error).toBeUndefined();
    expect(stream.report().answer).toBe("ok");
  });
});

describe("Gemini CLI's stream-json", () => {
  it("gives the text after the last tool call, and every model's tokens together", () => {
    const stream = new GeminiStream();
    const shown = feed(stream, "gemini-answer.jsonl");
    expect(shown).toContain("run_shell_command: echo hi");
    const report = stream.report();
    expect(report.answer).toBe("done");
    expect(report.usage).toEqual({
      model: "gemini-3.8-flash",
      input_tokens: 2700,
      output_tokens: 240,
      cache_read_tokens: 900,
      cache_write_tokens: 0,
    });
  });

  it("reports an API refusal from the result event", () => {
    const stream = new GeminiStream();
    feed(stream, "gemini-401.jsonl");
    expect(stream.report().answer).toBeUndefined();
    expect(stream.report().error?.reason).toBe("auth_failed");
  });
});
