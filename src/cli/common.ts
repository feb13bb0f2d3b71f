// Shared CLI plumbing: argument parsing with node:util, help text, and error exits.
import { existsSync } from "node:fs";
import { resolve } from "node:path";
import { type ParseArgsConfig, parseArgs } from "node:util";
import { UserError } from "../util/errors.js";
import { printable } from "../util/terminal-text.js";

export type Options = NonNullable<ParseArgsConfig["options"]>;

export interface Parsed {
  values: Record<string, string | boolean | string[] | undefined>;
  positionals: string[];
}

/** Parses argv strictly; unknown flags are usage errors that point at --help. */
export function parse(
  argv: string[],
  options: Options,
  command: string,
  /** The public autoloop's verbs exit 1 on a usage mistake; ours before them, 2. */
  usageExit = 2,
): Parsed {
  try {
    const { values, positionals } = parseArgs({
      args: argv,
      options: { ...options, help: { type: "boolean", short: "h" } },
      allowPositionals: true,
      strict: true,
    });
    return { values: values as Parsed["values"], positionals };
  } catch (err) {
    throw new UserError(
      `${command}: ${(err as Error).message.split("\n")[0]}; see \`${command} --help\``,
      usageExit,
    );
  }
}

export function str(p: Parsed, name: string): string | undefined {
  const v = p.values[name];
  return typeof v === "string" ? v : undefined;
}

export function flag(p: Parsed, name: string): boolean {
  return p.values[name] === true;
}

export function list(p: Parsed, name: string): string[] {
  const v = p.values[name];
  return Array.isArray(v) ? v : typeof v === "string" ? [v] : [];
}

export function intOption(p: Parsed, name: string, command: string): number | undefined {
  const text = str(p, name);
  if (text === undefined) return undefined;
  const n = Number(text);
  if (!Number.isInteger(n) || n < 1)
    throw new UserError(
      `${command}: --${name} must be a whole number of 1 or more, found ${JSON.stringify(text)}`,
    );
  return n;
}

/**
 * Output to a closed pipe must never kill a run: when a scheduler that holds our stdout
 * restarts, the run it adopts goes on writing into nothing.
 */
function tolerateClosedPipes(): void {
  for (const stream of [process.stdout, process.stderr]) {
    stream.on("error", (err: NodeJS.ErrnoException) => {
      if (err.code !== "EPIPE") throw err;
    });
  }
}

/** Runs a CLI main, printing user errors without a stack and exiting with their code. */
export async function runMain(main: () => Promise<number>, name: string): Promise<void> {
  tolerateClosedPipes();
  try {
    process.exitCode = await main();
  } catch (err) {
    if (err instanceof UserError) {
      // A message that already names its command ("autoloop-cron list: ...") gets no second prefix.
      const named = err.message.startsWith(`${name} `) || err.message.startsWith(`${name}:`);
      // Messages can quote a run's words (a question id, a task): no terminal escapes.
      const text = printable(err.message, { multiline: true });
      process.stderr.write(named ? `${text}\n` : `${name}: ${text}\n`);
      process.exitCode = err.exitCode;
    } else {
      process.stderr.write(`${name}: unexpected error: ${(err as Error)?.stack ?? String(err)}\n`);
      process.exitCode = 70;
    }
  }
}

/** Pads columns for a plain-text table; a cell's control characters shown escaped (run text). */
export function table(cells: string[][]): string {
  if (cells.length === 0) return "";
  const rows = cells.map((r) => r.map((c) => printable(c, { maxChars: Infinity })));
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => (r[i] ?? "").length)));
  return rows
    .map((r) =>
      r
        .map((c, i) => (i === r.length - 1 ? c : c.padEnd(widths[i]!)))
        .join("  ")
        .trimEnd(),
    )
    .join("\n");
}

/**
 * The project folder holding `.autoloop/`: `--work-dir`, else `$AUTOLOOP_PROJECT_DIR` (the
 * public autoloop's variable), else the current dir; a missing folder is the user's mistake.
 */
export function workDirOf(p: Parsed, command: string): string {
  const given = str(p, "work-dir") ?? process.env.AUTOLOOP_PROJECT_DIR;
  const dir = resolve(given || process.cwd());
  if (!existsSync(dir))
    throw new UserError(
      `${command}: the work dir ${dir} does not exist; pass --work-dir with the project folder the runs ran in`,
      1,
    );
  return dir;
}
