// Environment files (`KEY=value` lines, as systemd's EnvironmentFile= and Docker's --env-file
// read them) that carry an agent's credentials to the runs that need them, and no others.
import { readFileSync, statSync } from "node:fs";
import { type FieldProblem, UserError, ValidationError } from "./errors.js";
import { readSmallRegularFile } from "./untrusted-file.js";

const NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

function unquote(raw: string): string | undefined {
  const value = raw.trim();
  if (value.startsWith("'"))
    return value.endsWith("'") && value.length > 1 ? value.slice(1, -1) : undefined;
  if (value.startsWith('"')) {
    if (!value.endsWith('"') || value.length < 2) return undefined;
    return value.slice(1, -1).replace(/\\(["\\$`n])/g, (_, c: string) => (c === "n" ? "\n" : c));
  }
  return value;
}

/** Parses the text of an env file; problems never repeat a value (it may be a secret). */
export function parseEnvFile(file: string, text: string): Record<string, string> {
  const env: Record<string, string> = {};
  const problems: FieldProblem[] = [];
  text.split(/\r?\n/).forEach((line, i) => {
    const trimmed = line.trim();
    if (trimmed === "" || trimmed.startsWith("#")) return;
    const body = trimmed.startsWith("export ") ? trimmed.slice(7).trimStart() : trimmed;
    const eq = body.indexOf("=");
    const name = eq > 0 ? body.slice(0, eq).trim() : "";
    const value = eq > 0 ? unquote(body.slice(eq + 1)) : undefined;
    if (!NAME.test(name) || value === undefined) {
      problems.push({
        file,
        field: `line ${i + 1}`,
        found: NAME.test(name)
          ? `${name}= with an unterminated quote`
          : "a line that is not NAME=value",
        expected: "NAME=value (a # starts a comment; quotes are optional)",
      });
      return;
    }
    env[name] = value;
  });
  if (problems.length > 0) throw new ValidationError(problems);
  return env;
}

/** Reads env files in order (a later file wins); a missing file is an error naming it. */
export function readEnvFiles(files: readonly string[]): Record<string, string> {
  const env: Record<string, string> = {};
  for (const file of files) {
    let text: string;
    try {
      const mode = statSync(file).mode & 0o777;
      // Like ssh with a private key: keys others can read are refused, not used.
      if ((mode & 0o077) !== 0)
        throw new UserError(
          `--env-file ${file}: mode ${mode.toString(8).padStart(4, "0")} lets other users read the keys in it; run \`chmod 600 ${file}\` (owner only)`,
        );
      text = readFileSync(file, "utf8");
    } catch (err) {
      if (err instanceof UserError) throw err;
      const code = (err as NodeJS.ErrnoException).code ?? "error";
      throw new UserError(
        `--env-file ${file}: cannot read it (${code}); create it (mode 0600, NAME=value lines) or fix the path`,
      );
    }
    Object.assign(env, parseEnvFile(file, text));
  }
  return env;
}

/** An env file this large is not one: its values are not read for redaction. */
const SECRET_FILE_MAX_BYTES = 1 << 20;

/**
 * The values of an env file, for the daemon's and the operator's tools to redact run text
 * with: never blocks (a FIFO in a project), never throws; a file it cannot read or parse
 * gives none (the run that needs it fails on it, and says so).
 */
export function envFileValues(file: string): string[] {
  const text = readSmallRegularFile(file, SECRET_FILE_MAX_BYTES, { followLinks: true });
  if (text === undefined) return [];
  try {
    return Object.values(parseEnvFile(file, text));
  } catch {
    return [];
  }
}
