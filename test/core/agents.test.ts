// Agent adapters: the argv each CLI gets, how preset args combine with it, and failure
// classes read from the CLIs' real messages.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { agentArgv } from "../../src/harness/agents/backend.js";
import { classifyAgentFailure } from "../../src/harness/agents/failure.js";
import { AGENTS, agentArgs, resolveAgent } from "../../src/harness/agents/index.js";
import { agentTableMarkdown } from "../../src/harness/agents/table.js";
import { ROOT } from "../helpers/cli.js";

describe("resolveAgent", () => {
  it("picks the adapter by the command's file name, or by backend.agent", () => {
    expect(resolveAgent({ command: "claude" }).id).toBe("claude");
    expect(resolveAgent({ command: "/opt/node/bin/codex" }).id).toBe("codex");
    expect(resolveAgent({ command: "gemini" }).id).toBe("gemini");
    expect(resolveAgent({ command: "node" }).id).toBe("command");
    expect(resolveAgent({ command: "/usr/local/bin/my-claude-wrapper", agent: "claude" }).id).toBe(
      "claude",
    );
    expect(resolveAgent({ command: "claude", agent: "command" }).id).toBe("command");
  });
});

describe("agentArgs", () => {
  it("adds each CLI's unattended defaults", () => {
    expect(agentArgs(AGENTS.claude, [])).toEqual([
      "-p",
      "--output-format",
      "stream-json",
      "--verbose",
      "--permission-mode",
      "acceptEdits",
      "--allowedTools",
      "Bash({{TOOL_PATH}} *)",
    ]);
    expect(agentArgs(AGENTS.codex, [])).toEqual([
      "exec",
      "--sandbox",
      "workspace-write",
      "--skip-git-repo-check",
      "--color",
      "never",
      "--json",
    ]);
    expect(agentArgs(AGENTS.gemini, [])).toEqual([
      "--approval-mode",
      "yolo",
      "--skip-trust",
      "--output-format",
      "stream-json",
    ]);
    expect(agentArgs(AGENTS.command, ["a", "b"])).toEqual(["a", "b"]);
  });

  it("lets preset args override a default (flag or flag=value) and drops a repeated mode", () => {
    expect(agentArgs(AGENTS.claude, ["-p", "--dangerously-skip-permissions"])).toEqual([
      "-p",
      "--output-format",
      "stream-json",
      "--verbose",
      "--allowedTools",
      "Bash({{TOOL_PATH}} *)",
      "--dangerously-skip-permissions",
    ]);
    expect(agentArgs(AGENTS.codex, ["exec", "--sandbox=danger-full-access"])).toEqual([
      "exec",
      "--skip-git-repo-check",
      "--color",
      "never",
      "--json",
      "--sandbox=danger-full-access",
    ]);
    expect(agentArgs(AGENTS.gemini, ["-y", "-m", "gemini-2.5-pro"])).toEqual([
      "--skip-trust",
      "--output-format",
      "stream-json",
      "-y",
      "-m",
      "gemini-2.5-pro",
    ]);
  });

  it("replaces retired flags and a dangling prompt flag", () => {
    expect(agentArgs(AGENTS.codex, ["exec", "--full-auto"])).toEqual([
      "exec",
      "--skip-git-repo-check",
      "--color",
      "never",
      "--json",
      "--sandbox",
      "workspace-write",
    ]);
    expect(agentArgs(AGENTS.gemini, ["--yolo", "-p"])).toEqual([
      "--skip-trust",
      "--output-format",
      "stream-json",
      "--yolo",
    ]);
  });
});

describe("agentArgv", () => {
  it("never lets a variadic option swallow a prompt argument", () => {
    const args = agentArgs(AGENTS.claude, ["--allowedTools", "Bash", "Read"]);
    const argv = agentArgv({
      args,
      promptMode: "arg",
      prompt: "fix it",
      promptPath: "/p",
      promptArg: AGENTS.claude.promptArg,
    });
    expect(argv.slice(-2)).toEqual(["--", "fix it"]);
    expect(agentArgv({ args, promptMode: "stdin", prompt: "fix it", promptPath: "/p" })).toEqual(
      args,
    );
    expect(
      agentArgv({
        args: [],
        promptMode: "arg",
        prompt: "-x",
        promptPath: "",
        promptArg: AGENTS.gemini.promptArg,
      }),
    ).toEqual(["--prompt=-x"]);
  });
});

describe("classifyAgentFailure, from the CLIs' real words", () => {
  it("reads logins refused", () => {
    expect(
      classifyAgentFailure(AGENTS.claude, 1, "Not logged in · Please run /login\n"),
    ).toMatchObject({
      reason: "auth_failed",
      hint: expect.stringContaining("claude /login"),
    });
    expect(
      classifyAgentFailure(AGENTS.claude, 1, "Invalid API key · Please run /login").reason,
    ).toBe("auth_failed");
    expect(
      classifyAgentFailure(
        AGENTS.codex,
        1,
        "ERROR: unexpected status 401 Unauthorized: Missing bearer or basic authentication in header",
      ).reason,
    ).toBe("auth_failed");
    // Gemini's exit code 41 says it whatever the text.
    expect(classifyAgentFailure(AGENTS.gemini, 41, "").reason).toBe("auth_failed");
    expect(
      classifyAgentFailure(
        AGENTS.gemini,
        1,
        "Please set an Auth method in your /home/x/.gemini/settings.json or specify one of the following environment variables before running: GEMINI_API_KEY",
      ).hint,
    ).toContain("GEMINI_API_KEY");
  });

  it("tells quota from rate limits and keeps the retry time", () => {
    expect(
      classifyAgentFailure(AGENTS.claude, 1, "Claude AI usage limit reached|1764036000"),
    ).toEqual({
      reason: "rate_limited",
      hint: expect.any(String),
      retryAfter: "2025-11-25T02:00:00.000Z",
    });
    expect(
      classifyAgentFailure(AGENTS.claude, 1, "You've hit your limit · resets 3pm (Europe/Berlin)"),
    ).toMatchObject({ reason: "rate_limited", retryAfter: "3pm (Europe/Berlin)" });
    expect(
      classifyAgentFailure(
        AGENTS.codex,
        1,
        "ERROR: You've hit your usage limit. Upgrade to Pro or try again in 2 days 3 hours 5 minutes.",
      ),
    ).toMatchObject({ reason: "rate_limited", retryAfter: "2 days 3 hours 5 minutes" });
    expect(
      classifyAgentFailure(
        AGENTS.codex,
        1,
        "stream error: You exceeded your current quota, please check your plan and billing details. (insufficient_quota)",
      ).reason,
    ).toBe("quota_exhausted");
    expect(
      classifyAgentFailure(
        AGENTS.gemini,
        1,
        "[API Error: RESOURCE_EXHAUSTED: Quota exceeded for quota metric 'Generate Content API requests per minute'. Please retry in 37.5s.]",
      ),
    ).toMatchObject({ reason: "rate_limited", retryAfter: "37.5s" });
    expect(classifyAgentFailure(AGENTS.claude, 1, "Credit balance is too low").reason).toBe(
      "quota_exhausted",
    );
  });

  it("leaves everything else backend_failed", () => {
    expect(classifyAgentFailure(AGENTS.claude, 2, "TypeError: x is undefined")).toEqual({
      reason: "backend_failed",
    });
    expect(classifyAgentFailure(AGENTS.command, 41, "boom").reason).toBe("backend_failed");
  });
});

describe("the README's agent table", () => {
  it("is the one the adapters generate (`autoloop agents --markdown`)", () => {
    const readme = readFileSync(join(ROOT, "README.md"), "utf8");
    const start = readme.indexOf("<!-- agents-table:start -->\n");
    const end = readme.indexOf("<!-- agents-table:end -->");
    expect(start).toBeGreaterThan(0);
    expect(readme.slice(start + "<!-- agents-table:start -->\n".length, end)).toBe(
      agentTableMarkdown(),
    );
  });
});

describe("presets written for claude, run by another agent", () => {
  it("translate claude's print mode and unattended flag into the agent's own", () => {
    const claudeStyle = ["-p", "--dangerously-skip-permissions"];
    const gemini = agentArgs(AGENTS.gemini, claudeStyle);
    expect(gemini).not.toContain("-p");
    expect(gemini).not.toContain("--dangerously-skip-permissions");
    expect(gemini.filter((a) => a === "--approval-mode")).toHaveLength(1);
    const codex = agentArgs(AGENTS.codex, ["--dangerously-skip-permissions"]);
    expect(codex).toContain("--dangerously-bypass-approvals-and-sandbox");
    expect(codex).not.toContain("--sandbox"); // the bypass replaces the default sandbox
  });
});
