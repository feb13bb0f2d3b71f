// What Codex's own configuration says, for the two things the harness needs to know: the
// model a run uses (to price its tokens) and whether it talks to a provider of its own
// (`model_provider` in config.toml or `-c`), which `codex login status` does not see.
import { readFileSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";
import { parse } from "smol-toml";
import { optionValue, optionValues } from "./argv.js";

/** `-c key=value` overrides in argv, by key (values as TOML would read them, quotes dropped). */
function overrides(args: readonly string[]): Map<string, string> {
  const found = new Map<string, string>();
  for (const pair of optionValues(args, ["-c", "--config"])) {
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
  return optionValue(args, ["-m", "--model"]) ?? setting(args, env, "model") ?? "";
}

/** Codex talks to a provider other than OpenAI's (its own login does not apply). */
export function codexUsesOwnProvider(args: readonly string[], env: NodeJS.ProcessEnv): boolean {
  if (args.includes("--oss")) return true;
  const provider = setting(args, env, "model_provider");
  return provider !== undefined && provider !== "openai";
}
