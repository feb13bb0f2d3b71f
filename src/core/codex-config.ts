// What Codex's own configuration says, for the two things the harness needs to know: the
// model a run uses (to price its tokens) and whether it talks to a provider of its own
// (`model_provider` in config.toml or `-c`), which `codex login status` does not see.
import { readFileSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";
import { parse } from "smol-toml";

/** `-c key=value` overrides in argv, by key (values as TOML would read them, quotes dropped). */
function overrides(args: readonly string[]): Map<string, string> {
  const found = new Map<string, string>();
  for (let i = 0; i < args.length; i++) {
    const token = args[i]!;
    const pair =
      token === "-c" || token === "--config"
        ? args[++i]
        : token.startsWith("--config=")
          ? token.slice("--config=".length)
          : undefined;
    if (pair === undefined) continue;
    const eq = pair.indexOf("=");
    if (eq > 0)
      found.set(
        pair.slice(0, eq).trim(),
        pair
          .slice(eq + 1)
          .trim()
          .replace(/^"(.*)"$/, "$1"),
      );
  }
  return found;
}

function configFile(env: NodeJS.ProcessEnv): Record<string, unknown> {
  const home = env.CODEX_HOME || join(env.HOME || homedir(), ".codex");
  try {
    return parse(readFileSync(join(home, "config.toml"), "utf8")) as Record<string, unknown>;
  } catch {
    return {};
  }
}

function setting(args: readonly string[], env: NodeJS.ProcessEnv, key: string): string | undefined {
  const fromArgs = overrides(args).get(key);
  if (fromArgs !== undefined) return fromArgs;
  const value = configFile(env)[key];
  return typeof value === "string" ? value : undefined;
}

/** The model of a codex run: `-m`/`--model`, `-c model=`, config.toml's `model`; "" if none says. */
export function codexModel(args: readonly string[], env: NodeJS.ProcessEnv): string {
  for (let i = args.length - 1; i >= 0; i--) {
    const token = args[i]!;
    if ((token === "-m" || token === "--model") && i + 1 < args.length) return args[i + 1]!;
    if (token.startsWith("--model=")) return token.slice("--model=".length);
  }
  return setting(args, env, "model") ?? "";
}

/** Codex talks to a provider other than OpenAI's (its own login does not apply). */
export function codexUsesOwnProvider(args: readonly string[], env: NodeJS.ProcessEnv): boolean {
  if (args.includes("--oss")) return true;
  const provider = setting(args, env, "model_provider");
  return provider !== undefined && provider !== "openai";
}
