// What an agent CLI's module tells the harness: its unattended non-interactive invocation, how
// it is logged in, how its refusals read, its stream, its prices, and what the preset checks
// need to know of its arguments. One module per CLI (claude.ts, codex.ts...), listed in index.ts.
import type { AgentFailureReason, AgentStream } from "./stream.js";
import type { ModelPrice } from "./usage.js";

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

export interface AgentAdapter<Id extends string = string> {
  id: Id;
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
   * How the scheduler's `preflight` asks, before a slot, whether the CLI's login still works:
   * its own status command, or its cheapest call. `refused` reads the answer as logged out or
   * expired; otherwise exit 0 is a pass and anything else tells nothing either way.
   */
  credentialsCheck?: {
    args: readonly string[];
    refused(exitCode: number, output: string): boolean;
    /** The check cannot see how the CLI is logged in for these args (a provider of its own). */
    skip?: (args: readonly string[], env: NodeJS.ProcessEnv) => boolean;
  };
  /**
   * The CLI's model flags (`backend.model`, a role's `backend_model`): the first is passed,
   * any of them in the preset's args chooses the model itself. Unset: the CLI has none.
   */
  modelFlags?: readonly string[];
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
  /** Trailing preset args that expected the prompt next (an old override): dropped. */
  danglingPromptFlags?: readonly string[];
  /** Args that cap one call's spend at `usd`, for CLIs that can (one long call cannot overshoot). */
  spendCap?: (usd: number) => string[];
  /** The CLI reports usage only by writing AUTOLOOP_USAGE_FILE (the generic command). */
  usageByFile?: boolean;
  /** List prices of its models, USD per million tokens, by model id prefix (usage.ts's table). */
  prices?: Readonly<Record<string, ModelPrice>>;
  /**
   * Why the CLI, given `args`, may write in the project; undefined when it is held to its state
   * dir (the topology lint's check of a preset that publishes a report).
   */
  writesInProject?: (args: readonly string[]) => string | undefined;
}

export const INSTALL_HINT = (pkg: string, cmd: string) =>
  `install it for the user that runs the harness (\`npm install -g ${pkg}\`) or set backend.command to the absolute path of \`${cmd}\``;
