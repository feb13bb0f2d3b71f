// What the harness knows of each agent CLI: its unattended non-interactive invocation, how
// it is logged in, and how its refusals read. One table, used by the loop, `autoloop agents`
// and the README's agent table (a test checks the README against it).
import { basename } from "node:path";
import { optionValue } from "./argv.js";
import { ClaudeStream } from "./claude.js";
import { CodexStream } from "./codex.js";
import { codexModel, codexUsesOwnProvider } from "./codex-config.js";
import { GeminiStream } from "./gemini.js";
import type { AgentFailureReason, AgentStream } from "./stream.js";

export type AgentId = "claude" | "codex" | "gemini" | "command";

export type { AgentFailureReason } from "./stream.js";

/** An option the adapter adds unless the preset's args already set it (or a rival flag). */
export interface DefaultOption {
  args: readonly string[];
  /** Flags that replace this default when the preset passes any of them. */
  unless: readonly string[];
  why: string;
}

export interface FailurePattern {
  reason: Exclude<AgentFailureReason, "backend_failed">;
  pattern: RegExp;
  /** What to do for this cause in particular (else the adapter's hint for the reason). */
  hint?: string;
}

export interface AgentAdapter {
  id: AgentId;
  name: string;
  /** The npm package that installs the CLI, when there is one. */
  npmPackage?: string;
  /** Leading argv that selects non-interactive mode (`-p`, `exec`); stripped from preset args. */
  mode: readonly string[];
  /** Preset-arg spellings of the mode, stripped so old presets do not pass it twice. */
  modeAliases: readonly string[];
  defaults: readonly DefaultOption[];
  /** Where the prompt goes by default: stdin keeps it out of `ps` and away from variadic flags. */
  promptMode: "arg" | "stdin" | "file";
  /** How a prompt passed as an argument is attached, so no variadic option can swallow it. */
  promptArg: (prompt: string) => string[];
  /** Preset args the CLI no longer accepts, each with what replaces it. */
  replaced?: Readonly<Record<string, readonly string[]>>;
  /** Environment variables that carry credentials; any one set means "logged in by key". */
  credentialEnv: readonly string[];
  /**
   * A command that asks the CLI whether it is logged in, for CLIs that would otherwise retry
   * the network for minutes before refusing; run only when no credential variable is set.
   */
  loginCheck?: {
    args: readonly string[];
    loggedOut: RegExp;
    /** The CLI is logged in some other way its check does not see (a provider of its own config). */
    skip?: (args: readonly string[], env: NodeJS.ProcessEnv) => boolean;
  };
  /**
   * Args that let a sandboxed agent write the run's state (journal, tasks) when that lives
   * outside its working folder (worktree isolation, a shared state dir).
   */
  writableDir?: (dir: string) => string[];
  /** The CLI's machine-readable output, when the argv selects it (the defaults do). */
  stream?: {
    selected(args: readonly string[]): boolean;
    open(args: readonly string[], env: NodeJS.ProcessEnv): AgentStream;
  };
  /** Exit codes that mean one thing whatever the output says. */
  exitCodes?: Readonly<Record<number, AgentFailureReason>>;
  failures: readonly FailurePattern[];
  /** What on-call should do, by failure reason. */
  hints: Readonly<Partial<Record<AgentFailureReason, string>>>;
  /** Where its credentials come from, for the README's deployment notes. */
  credentials: string;
}

const INSTALL_HINT = (pkg: string, cmd: string) =>
  `install it for the user that runs the harness (\`npm install -g ${pkg}\`) or set backend.command to the absolute path of \`${cmd}\``;

export const AGENTS: Readonly<Record<AgentId, AgentAdapter>> = {
  claude: {
    id: "claude",
    name: "Claude Code",
    npmPackage: "@anthropic-ai/claude-code",
    mode: ["-p"],
    modeAliases: ["-p", "--print"],
    defaults: [
      {
        args: ["--output-format", "stream-json", "--verbose"],
        unless: ["--output-format"],
        why: "events the harness reads: the answer, usage and cost, errors",
      },
      {
        args: ["--permission-mode", "acceptEdits"],
        unless: [
          "--permission-mode",
          "--dangerously-skip-permissions",
          "--allow-dangerously-skip-permissions",
        ],
        why: "edits without asking (bypassPermissions is refused as root)",
      },
      {
        args: ["--allowedTools", "Bash({{TOOL_PATH}} *)"],
        unless: [],
        why: "the event tool may always run (added to any --allowedTools of the preset)",
      },
    ],
    promptMode: "stdin",
    promptArg: (prompt) => ["--", prompt],
    stream: {
      selected: (args) => /^(stream-)?json$/.test(optionValue(args, ["--output-format"]) ?? ""),
      open: () => new ClaudeStream(),
    },
    credentialEnv: ["ANTHROPIC_API_KEY", "CLAUDE_CODE_OAUTH_TOKEN", "ANTHROPIC_AUTH_TOKEN"],
    failures: [
      { reason: "auth_failed", pattern: /not logged in|please run \/login|invalid api key/i },
      { reason: "quota_exhausted", pattern: /credit balance is too low/i },
      {
        reason: "rate_limited",
        pattern: /usage limit reached|you've hit your limit|\b5-hour limit|weekly limit/i,
      },
    ],
    hints: {
      auth_failed:
        "Claude Code is not logged in for the user that runs the harness: run `claude /login` as that user (the service user under systemd), or set ANTHROPIC_API_KEY (or CLAUDE_CODE_OAUTH_TOKEN from `claude setup-token`) in its environment, e.g. the unit's EnvironmentFile.",
      quota_exhausted:
        "The Anthropic account has no credit left: add credit in the Console or switch the key; the next scheduled run will try again.",
      rate_limited:
        "Claude's usage limit is reached; the run stopped and the next scheduled run will try again (move the schedule past the reset time if this repeats).",
      backend_failed: INSTALL_HINT("@anthropic-ai/claude-code", "claude"),
    },
    credentials:
      "`claude /login` as the service user, or `ANTHROPIC_API_KEY` / `CLAUDE_CODE_OAUTH_TOKEN`",
  },
  codex: {
    id: "codex",
    name: "OpenAI Codex",
    npmPackage: "@openai/codex",
    mode: ["exec"],
    modeAliases: ["exec", "e"],
    defaults: [
      {
        args: ["--sandbox", "workspace-write"],
        unless: ["--sandbox", "-s", "--dangerously-bypass-approvals-and-sandbox"],
        why: "writes inside the project only; exec never asks for approval",
      },
      { args: ["--skip-git-repo-check"], unless: [], why: "runs outside a git repository too" },
      { args: ["--color", "never"], unless: ["--color"], why: "no escape codes in the journal" },
      {
        args: ["--json"],
        unless: ["--json", "--experimental-json"],
        why: "events the harness reads: the answer, usage, errors",
      },
    ],
    writableDir: (dir) => ["--add-dir", dir],
    stream: {
      selected: (args) => args.includes("--json") || args.includes("--experimental-json"),
      open: (args, env) => new CodexStream(codexModel(args, env)),
    },
    promptMode: "stdin",
    promptArg: (prompt) => ["--", prompt],
    replaced: {
      "--full-auto": ["--sandbox", "workspace-write"],
      // Claude's unattended flag, from presets written for claude (the public autoloop's).
      "--dangerously-skip-permissions": ["--dangerously-bypass-approvals-and-sandbox"],
    },
    credentialEnv: ["CODEX_API_KEY", "OPENAI_API_KEY"],
    loginCheck: {
      args: ["login", "status"],
      loggedOut: /not logged in/i,
      // `login status` knows only OpenAI's own login: a provider from config.toml is not its.
      skip: codexUsesOwnProvider,
    },
    failures: [
      { reason: "auth_failed", pattern: /not logged in|401 unauthorized|missing bearer/i },
      {
        reason: "quota_exhausted",
        pattern: /insufficient_quota|exceeded your current quota|quota exceeded\. check your plan/i,
      },
      {
        reason: "rate_limited",
        pattern: /hit your usage limit|usage limit|429 too many requests/i,
      },
    ],
    hints: {
      auth_failed:
        "Codex is not logged in for the user that runs the harness: run `codex login` (or `codex login --device-auth` on a server) as that user, or set CODEX_API_KEY in its environment, e.g. the unit's EnvironmentFile.",
      quota_exhausted:
        "The OpenAI account's quota is used up: check the plan and billing; the next scheduled run will try again.",
      rate_limited:
        "Codex's usage limit is reached; the run stopped and the next scheduled run will try again.",
      backend_failed: INSTALL_HINT("@openai/codex", "codex"),
    },
    credentials: "`codex login` as the service user, or `CODEX_API_KEY`",
  },
  gemini: {
    id: "gemini",
    name: "Gemini CLI",
    npmPackage: "@google/gemini-cli",
    mode: [],
    // A leading `-p` is claude's print mode in presets written for claude: the harness gives
    // gemini its prompt itself.
    modeAliases: ["-p"],
    replaced: { "--dangerously-skip-permissions": ["--approval-mode", "yolo"] },
    defaults: [
      {
        args: ["--approval-mode", "yolo"],
        unless: ["--approval-mode", "-y", "--yolo"],
        why: "tools run without asking",
      },
      {
        args: ["--skip-trust"],
        unless: [],
        why: "trusts the project folder (else approval falls back to default and edits stall)",
      },
      {
        args: ["--output-format", "stream-json"],
        unless: ["--output-format", "-o"],
        why: "events the harness reads: the answer, usage, errors",
      },
    ],
    stream: {
      selected: (args) =>
        /^(stream-)?json$/.test(optionValue(args, ["--output-format", "-o"]) ?? ""),
      open: () => new GeminiStream(),
    },
    // Headless when stdin is not a terminal; `-p` is only needed for a prompt argument.
    promptMode: "stdin",
    promptArg: (prompt) => [`--prompt=${prompt}`],
    credentialEnv: ["GEMINI_API_KEY", "GOOGLE_API_KEY", "GOOGLE_GENAI_USE_VERTEXAI"],
    exitCodes: { 41: "auth_failed" },
    failures: [
      {
        reason: "auth_failed",
        pattern: /invalid auth method selected/i,
        hint: 'Gemini CLI picked gateway auth because GOOGLE_GEMINI_BASE_URL is set, and gateway auth works only in ACP mode: keep GEMINI_API_KEY and add {"security": {"auth": {"selectedType": "gemini-api-key"}}} to ~/.gemini/settings.json of the user that runs the harness.',
      },
      { reason: "auth_failed", pattern: /please set an auth method|api key not valid/i },
      { reason: "quota_exhausted", pattern: /exhausted your daily quota/i },
      { reason: "rate_limited", pattern: /resource_exhausted|quota exceeded for quota metric/i },
    ],
    hints: {
      auth_failed:
        "Gemini CLI has no credentials for the user that runs the harness: set GEMINI_API_KEY (or GOOGLE_GENAI_USE_VERTEXAI with Vertex credentials) in its environment, e.g. the unit's EnvironmentFile, or log in once with `gemini` as that user.",
      quota_exhausted:
        "The Gemini daily quota is used up; the next scheduled run will try again after the reset.",
      rate_limited:
        "Gemini is rate limited; the run stopped and the next scheduled run will try again.",
      backend_failed: INSTALL_HINT("@google/gemini-cli", "gemini"),
    },
    credentials: "`GEMINI_API_KEY`, or Vertex AI variables",
  },
  command: {
    id: "command",
    name: "any command",
    mode: [],
    modeAliases: [],
    defaults: [],
    promptMode: "arg",
    promptArg: (prompt) => [prompt],
    credentialEnv: [],
    failures: [],
    hints: {},
    credentials: "its own environment",
  },
};

export const AGENT_IDS = Object.keys(AGENTS) as AgentId[];

/** The adapter for a backend: `backend.agent` when given, else the command's file name. */
export function resolveAgent(backend: {
  agent?: AgentId | undefined;
  command: string;
}): AgentAdapter {
  if (backend.agent !== undefined) return AGENTS[backend.agent];
  const name = basename(backend.command).replace(/\.(exe|cmd|js|mjs)$/i, "");
  return name === "claude" || name === "codex" || name === "gemini" ? AGENTS[name] : AGENTS.command;
}

function flagOf(token: string): string | undefined {
  if (!token.startsWith("-") || token === "-" || token === "--") return undefined;
  const eq = token.indexOf("=");
  return eq > 0 ? token.slice(0, eq) : token;
}

/** Preset args with the mode token dropped and retired flags replaced by what replaced them. */
function normalisedPresetArgs(agent: AgentAdapter, presetArgs: readonly string[]): string[] {
  const args = [...presetArgs];
  if (args.length > 0 && agent.modeAliases.includes(args[0]!)) args.shift();
  // A dangling `-p` (an old gemini override that expected the prompt next) selects nothing now.
  if (agent.id === "gemini" && (args.at(-1) === "-p" || args.at(-1) === "--prompt")) args.pop();
  return args.flatMap((a) => agent.replaced?.[a] ?? [a]);
}

/**
 * The argv for one agent call (prompt excluded): mode, the adapter's unattended defaults that
 * the preset does not override, then the preset's own args.
 */
export function agentArgs(agent: AgentAdapter, presetArgs: readonly string[]): string[] {
  const own = normalisedPresetArgs(agent, presetArgs);
  const given = new Set(own.map(flagOf).filter((f): f is string => f !== undefined));
  const defaults = agent.defaults
    .filter((d) => !d.unless.some((flag) => given.has(flag)))
    .flatMap((d) => d.args);
  return [...agent.mode, ...defaults, ...own];
}

/** Where the prompt goes: the preset's choice, else the adapter's. */
export function promptModeFor(
  agent: AgentAdapter,
  configured: "arg" | "stdin" | "file" | undefined,
): "arg" | "stdin" | "file" {
  return configured ?? agent.promptMode;
}
