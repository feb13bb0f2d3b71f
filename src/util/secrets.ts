// Secrets named by config (an environment variable, a file, or an inline value) and the
// redactor that keeps their values, and URL passwords, out of logs, errors and alert bodies.
import { readFileSync } from "node:fs";
import { UserError } from "./errors.js";

/**
 * Where a secret comes from: config files name `*_env` or `*_file`, never the value itself;
 * `literal` is for settings that are not secret (such as a plain webhook url).
 */
export type SecretRef =
  | { kind: "env"; name: string }
  | { kind: "file"; path: string }
  | { kind: "literal"; value: string };

/** A secret that cannot be resolved; the message names where it was looked for, never a value. */
export class SecretError extends UserError {
  constructor(message: string) {
    super(message);
    this.name = "SecretError";
  }
}

export const REDACTED = "[REDACTED]";

// Shorter values would redact ordinary words all over the logs; URL passwords are still
// caught by the URL rule below whatever their length.
const MIN_SECRET_LENGTH = 4;
// scheme://user:password@host — the password stops at "@", "/" or whitespace.
const URL_PASSWORD = /\b([a-z][a-z0-9+.-]*:\/\/[^\s:@/]*:)[^\s@/]+@/gi;

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

/** Replaces registered secret values and URL passwords with `[REDACTED]`. */
export class Redactor {
  private readonly secrets = new Set<string>();
  private pattern: RegExp | undefined;

  /** A redactor of these values (an env file's, say). */
  static of(secrets: Iterable<string>): Redactor {
    const redactor = new Redactor();
    for (const secret of secrets) redactor.add(secret);
    return redactor;
  }

  /** Registers a value to hide from now on (also its URL-encoded form). */
  add(secret: string): void {
    for (const form of [secret, encodeURIComponent(secret)]) {
      if (form.length < MIN_SECRET_LENGTH || this.secrets.has(form)) continue;
      this.secrets.add(form);
      this.pattern = undefined;
    }
  }

  redact(text: string): string {
    let out = text.replace(URL_PASSWORD, `$1${REDACTED}@`);
    if (this.secrets.size === 0) return out;
    if (this.pattern === undefined) {
      // Longest first, so a secret that contains another is replaced whole.
      const alternatives = [...this.secrets].sort((a, b) => b.length - a.length).map(escapeRegExp);
      this.pattern = new RegExp(alternatives.join("|"), "g");
    }
    out = out.replace(this.pattern, REDACTED);
    return out;
  }
}

/** A deep copy of `value` (JSON-like data) with every string passed through `redactor`. */
export function redactStrings<T>(value: T, redactor: Redactor): T {
  const walk = (v: unknown): unknown => {
    if (typeof v === "string") return redactor.redact(v);
    if (Array.isArray(v)) return v.map(walk);
    if (v !== null && typeof v === "object")
      return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, walk(x)]));
    return v;
  };
  return walk(value) as T;
}

/** The process-wide redactor: secrets resolved anywhere are hidden everywhere. */
export const processRedactor = new Redactor();

export interface SecretDeps {
  env?: NodeJS.ProcessEnv;
  readFile?: (path: string) => string;
  redactor?: Redactor;
}

function readSecretFile(path: string, label: string, deps: SecretDeps): string {
  let text: string;
  try {
    text = (deps.readFile ?? ((p: string) => readFileSync(p, "utf8")))(path);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code ?? "unreadable";
    throw new SecretError(`${label}: cannot read secret file ${path} (${code})`);
  }
  // Files written by `echo` or editors end in a newline that is not part of the secret.
  const value = text.replace(/[\r\n]+$/, "");
  if (value === "") throw new SecretError(`${label}: secret file ${path} is empty`);
  return value;
}

/**
 * Resolves a secret from the environment, a file or an inline value and registers it with
 * the redactor. `label` names the owner, e.g. `channel "hook": url`.
 */
export function resolveSecret(
  ref: SecretRef | undefined,
  label: string,
  deps: SecretDeps = {},
): string {
  const env = deps.env ?? process.env;
  let value: string;
  if (ref?.kind === "env") {
    const found = env[ref.name];
    if (found === undefined || found === "") {
      throw new SecretError(
        `${label}: environment variable ${ref.name} is not set or is empty; export it before starting autoloop-cron`,
      );
    }
    value = found;
  } else if (ref?.kind === "file") {
    value = readSecretFile(ref.path, label, deps);
  } else if (ref?.kind === "literal" && ref.value !== "") {
    value = ref.value;
  } else {
    throw new SecretError(`${label}: not configured; set the *_env or *_file key`);
  }
  (deps.redactor ?? processRedactor).add(value);
  return value;
}
