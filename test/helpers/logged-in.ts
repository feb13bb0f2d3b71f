// The real agent CLIs (devDependencies), logged in against the scripted model server: a fresh
// HOME per test, each CLI's own way of taking a base URL and a key, and nothing that reaches
// beyond 127.0.0.1 (telemetry, update checks, retries that would wait for minutes).
import { mkdirSync, writeFileSync } from "node:fs";
import { delimiter, join } from "node:path";
import { ROOT, tempDir } from "./cli.js";
import { anthropic } from "./model-server/anthropic.js";
import { gemini } from "./model-server/gemini.js";
import {
  type ApiHandler,
  type ModelServer,
  type Script,
  startModelServer,
  type Usage,
} from "./model-server/index.js";
import { openai } from "./model-server/openai.js";

export type Cli = "claude" | "codex" | "gemini";
export const CLIS: readonly Cli[] = ["claude", "codex", "gemini"];

const HANDLERS: Readonly<Record<Cli, ApiHandler>> = { claude: anthropic, codex: openai, gemini };

/** The model each CLI is told to use, so its usage can be priced from the shipped table. */
export const MODELS: Readonly<Record<Cli, string>> = {
  claude: "claude-sonnet-4-5",
  codex: "gpt-5-codex",
  gemini: "gemini-2.5-flash",
};

export const BIN = join(ROOT, "node_modules/.bin");

// Credentials a developer's own shell may hold: none of them may reach a test's CLI.
const CREDENTIALS = [
  "ANTHROPIC_API_KEY",
  "CLAUDE_CODE_OAUTH_TOKEN",
  "ANTHROPIC_AUTH_TOKEN",
  "ANTHROPIC_BASE_URL",
  "CODEX_API_KEY",
  "OPENAI_API_KEY",
  "OPENAI_BASE_URL",
  "GEMINI_API_KEY",
  "GOOGLE_API_KEY",
  "GOOGLE_GEMINI_BASE_URL",
  "GOOGLE_GENAI_USE_VERTEXAI",
  "GOOGLE_GENAI_USE_GCA",
  "CODEX_HOME",
  "XDG_CONFIG_HOME",
];

/** An environment with no agent credentials and a HOME nobody has logged in from. */
export function loggedOutEnv(
  path = `${BIN}${delimiter}${process.env.PATH}`,
): Record<string, string> {
  const env: Record<string, string> = { HOME: tempDir("autoloop-home-"), PATH: path };
  for (const name of CREDENTIALS) env[name] = "";
  return env;
}

/** The environment in which `cli` is logged in to `server` (its config files written into HOME). */
export function loggedInEnv(cli: Cli, server: ModelServer): Record<string, string> {
  const env = loggedOutEnv();
  switch (cli) {
    case "claude":
      return {
        ...env,
        ANTHROPIC_BASE_URL: server.url,
        ANTHROPIC_API_KEY: "sk-ant-test",
        ANTHROPIC_MODEL: MODELS.claude,
        ANTHROPIC_SMALL_FAST_MODEL: MODELS.claude,
        CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
        CLAUDE_CODE_MAX_RETRIES: "0",
        DISABLE_AUTOUPDATER: "1",
      };
    case "codex": {
      // A provider of codex's own config with its own key variable: the way teams point codex
      // at a gateway, and the case `codex login status` does not know about.
      const codexHome = join(env.HOME!, ".codex");
      mkdirSync(codexHome, { recursive: true });
      writeFileSync(
        join(codexHome, "config.toml"),
        `model = "${MODELS.codex}"\nmodel_provider = "scripted"\n\n[model_providers.scripted]\nname = "Scripted"\nbase_url = "${server.url}/v1"\nwire_api = "responses"\nenv_key = "SCRIPTED_API_KEY"\nrequest_max_retries = 0\nstream_max_retries = 0\n`,
      );
      return { ...env, CODEX_HOME: codexHome, SCRIPTED_API_KEY: "sk-test" };
    }
    case "gemini": {
      const settings = join(env.HOME!, ".gemini");
      mkdirSync(settings, { recursive: true });
      writeFileSync(
        join(settings, "settings.json"),
        JSON.stringify({
          security: { auth: { selectedType: "gemini-api-key" } },
          model: { name: MODELS.gemini },
          privacy: { usageStatisticsEnabled: false },
          telemetry: { enabled: false },
          // One request per call: a 429 is not retried for minutes.
          general: { enableAutoUpdate: false, enableAutoUpdateNotification: false, maxAttempts: 1 },
          ide: { enabled: false },
        }),
      );
      return {
        ...env,
        GEMINI_API_KEY: "test-key",
        GOOGLE_GEMINI_BASE_URL: server.url,
        TERM: "dumb",
      };
    }
  }
}

/** A scripted model server for one CLI's API. */
export function modelServerFor(cli: Cli, script: Script, usage?: Usage): Promise<ModelServer> {
  return startModelServer({ script, handlers: [HANDLERS[cli]], ...(usage && { usage }) });
}
