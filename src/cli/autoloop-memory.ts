// `autoloop memory list|status|find|add|remove|promote`: loop memory from the command line
// (and, inside a run, from the event tool, which is this same CLI bound to the run).
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { MemoryEntry } from "../harness/memory/entry.js";
import { entryCount, type MemoryView } from "../harness/memory/materialize.js";
import { DEFAULT_MEMORY_FILE, projectMemoryFile, runMemoryFile } from "../harness/memory/paths.js";
import { renderMemory } from "../harness/memory/render.js";
import { MemoryStore } from "../harness/memory/store.js";
import { runRedactorFromEnv } from "../harness/run-secrets.js";
import { resolveProjectDir } from "../harness/tasks/paths.js";
import { parseDuration } from "../util/duration.js";
import { UserError } from "../util/errors.js";
import { printable } from "../util/terminal-text.js";
import { flag, list, parse, str } from "./common.js";

const HELP = `Usage: autoloop memory <subcommand>

  autoloop memory list [--json]                       project and run memory, newest first
  autoloop memory status                              size against the prompt budget, counts
  autoloop memory find <text...>                      entries whose id, text, category, key or value match
  autoloop memory add learning [--project] <text...>  a lesson (inside a run: the run's memory)
  autoloop memory add preference <category> <text...> a preference (always project memory)
  autoloop memory add meta <key> <value...>           a key/value note (inside a run: the run's)
  autoloop memory remove <id> [reason...]             tombstone an entry (reason: manual)
  autoloop memory promote <id>                        copy a run learning to project memory
  autoloop memory prune --older-than 30d [--type learning|preference|meta]
                                                      tombstone entries older than that
                                                      (project memory; all types by default)
  autoloop memory compact                             rewrite the file with its live entries only
                                                      (tombstones and what they removed go)

Project memory: $AUTOLOOP_MEMORY_FILE, else <project>/${DEFAULT_MEMORY_FILE} (core.memory_file),
where <project> is $AUTOLOOP_PROJECT_DIR or the current dir. Run memory: $AUTOLOOP_STATE_DIR/
memory.jsonl, inside a run only. The files are byte-compatible with the public autoloop's.
`;

function configuredMemoryFile(projectDir: string): string | undefined {
  const file = join(projectDir, "autoloops.toml");
  if (!existsSync(file)) return undefined;
  const m = /^\s*memory_file\s*=\s*"([^"]+)"/m.exec(readFileSync(file, "utf8"));
  return m?.[1];
}

function stores(): { project: MemoryStore; run: MemoryStore | undefined } {
  const projectDir = resolveProjectDir(process.env);
  const projectFile = projectMemoryFile(process.env, projectDir, configuredMemoryFile(projectDir));
  const runFile = runMemoryFile(process.env);
  return {
    project: new MemoryStore(projectFile),
    run: runFile === undefined || runFile === projectFile ? undefined : new MemoryStore(runFile),
  };
}

const EMPTY: MemoryView = { preferences: [], learnings: [], meta: [] };
const all = (v: MemoryView): MemoryEntry[] => [...v.preferences, ...v.learnings, ...v.meta];

function entryText(e: MemoryEntry): string {
  if (e.type === "preference") return `[${e.id}] [${e.category}] ${e.text}`;
  if (e.type === "learning") return `[${e.id}] (${e.source}) ${e.text}`;
  return `[${e.id}] ${e.key}: ${e.value}`;
}

/** What every subcommand is handed: the parsed line, its words (redacted), the stores, output. */
interface MemoryContext {
  p: ReturnType<typeof parse>;
  rest: string[];
  project: MemoryStore;
  run: MemoryStore | undefined;
  say: (line: string) => void;
}

function listMemory({ p, project, run, say }: MemoryContext): number {
  const views = { project: project.view(), run: run?.view() ?? EMPTY };
  if (flag(p, "json")) {
    say(JSON.stringify({ project: all(views.project), run: all(views.run) }, null, 2));
    return 0;
  }
  const text = renderMemory(views.project, views.run, 0).text;
  say(text === "" ? "No memory yet." : text);
  return 0;
}

function memoryStatus({ project, run, say }: MemoryContext): number {
  const views = { project: project.view(), run: run?.view() ?? EMPTY };
  const budget = 8000;
  const r = renderMemory(views.project, views.run, budget);
  const pct = Math.round((r.fullChars / budget) * 100);
  say(`${r.fullChars}/${budget} chars (${pct}% of the prompt budget), ${r.entries} entries`);
  for (const [tier, v] of Object.entries(views) as [string, MemoryView][])
    if (entryCount(v) > 0)
      say(
        `${tier}: ${v.preferences.length} preferences, ${v.learnings.length} learnings, ${v.meta.length} meta`,
      );
  return 0;
}

function findMemory({ rest, project, run, say }: MemoryContext): number {
  const needle = rest.join(" ").toLowerCase();
  if (needle === "")
    throw new UserError("autoloop memory find: what to look for? e.g. memory find flaky");
  const hits = [...all(project.view()), ...all(run?.view() ?? EMPTY)].filter((e) =>
    JSON.stringify(e).toLowerCase().includes(needle),
  );
  for (const e of hits) say(entryText(e));
  return hits.length > 0 ? 0 : 1;
}

function addMemory({ p, rest, project, run, say }: MemoryContext): number {
  const [kind, ...words] = rest;
  if (kind === "learning") {
    const target = flag(p, "project") || run === undefined ? project : run;
    say(target.add({ type: "learning", text: words.join(" ") }).id);
    return 0;
  }
  if (kind === "preference") {
    const [category, ...text] = words;
    if (category === undefined || text.length === 0)
      throw new UserError("autoloop memory add preference <category> <text...>");
    say(project.add({ type: "preference", category, text: text.join(" ") }).id);
    return 0;
  }
  if (kind === "meta") {
    const [key, ...value] = words;
    if (key === undefined || value.length === 0)
      throw new UserError("autoloop memory add meta <key> <value...>");
    say((run ?? project).add({ type: "meta", key, value: value.join(" ") }).id);
    return 0;
  }
  throw new UserError(
    `autoloop memory add: expected learning, preference or meta, found ${JSON.stringify(kind ?? "")}`,
  );
}

function removeMemory({ rest, project, run, say }: MemoryContext): number {
  const [id, ...reason] = rest;
  if (id === undefined) throw new UserError("autoloop memory remove <id> [reason...]");
  const removed = run?.remove(id, reason.join(" ")) ?? project.remove(id, reason.join(" "));
  if (removed === undefined) {
    process.stderr.write(
      `autoloop memory: no active entry ${JSON.stringify(id)}; nothing removed\n`,
    );
    return 1;
  }
  say(`removed ${id}`);
  return 0;
}

function compactMemory({ project, run, say }: MemoryContext): number {
  for (const store of [project, ...(run ? [run] : [])]) {
    const r = store.compact();
    say(`${store.path}: ${r.kept} live entries kept, ${r.dropped} lines dropped`);
  }
  return 0;
}

function pruneMemory({ p, project, say }: MemoryContext): number {
  const age = str(p, "older-than");
  const ms = age === undefined ? undefined : parseDuration(age);
  if (ms === undefined)
    throw new UserError(
      `autoloop memory prune: --older-than needs a duration such as 30d or 12h, found ${JSON.stringify(age ?? "")}`,
    );
  const kinds = list(p, "type");
  const allowed = ["learning", "preference", "meta"] as const;
  for (const k of kinds)
    if (!(allowed as readonly string[]).includes(k))
      throw new UserError(
        `autoloop memory prune: --type ${JSON.stringify(k)}: expected ${allowed.join(", ")}`,
      );
  const types = new Set(kinds.length > 0 ? kinds : allowed) as Set<MemoryEntry["type"]>;
  const pruned = project.prune(new Date(Date.now() - ms), types, `pruned: older than ${age}`);
  for (const e of pruned) say(`pruned ${entryText(e)}`);
  say(`${pruned.length} entries pruned; \`autoloop memory compact\` drops them from the file`);
  return 0;
}

function promoteMemory({ rest, project, run, say }: MemoryContext): number {
  const [id] = rest;
  if (id === undefined || run === undefined)
    throw new UserError(
      "autoloop memory promote <id>: only inside a run (AUTOLOOP_STATE_DIR), for a run learning",
    );
  const entry = run.find(id);
  if (entry?.type !== "learning")
    throw new UserError(`autoloop memory promote: ${id} is not a learning in this run's memory`);
  const promoted = project.add({ type: "learning", text: entry.text, source: "promoted" });
  run.remove(id, `promoted to ${promoted.id}`);
  say(promoted.id);
  return 0;
}

const SUBCOMMANDS: Record<string, (c: MemoryContext) => number> = {
  list: listMemory,
  status: memoryStatus,
  find: findMemory,
  add: addMemory,
  remove: removeMemory,
  compact: compactMemory,
  prune: pruneMemory,
  promote: promoteMemory,
};

export async function memoryCommand(argv: string[]): Promise<number> {
  const p = parse(
    argv,
    {
      json: { type: "boolean" },
      project: { type: "boolean" },
      "older-than": { type: "string" },
      type: { type: "string", multiple: true },
    },
    "autoloop memory",
  );
  // Inside a run, the run's keys never reach memory (later prompts and runs read it).
  const redactor = runRedactorFromEnv(process.env);
  const [action, ...words] = p.positionals;
  if (flag(p, "help") || action === undefined) {
    process.stdout.write(HELP);
    return action === undefined && !flag(p, "help") ? 2 : 0;
  }
  const subcommand = Object.hasOwn(SUBCOMMANDS, action) ? SUBCOMMANDS[action] : undefined;
  if (subcommand === undefined)
    throw new UserError(`autoloop memory: unknown subcommand ${JSON.stringify(action)}\n\n${HELP}`);
  // Memory is written by runs: its text is shown, never acted on by the terminal.
  const say = (line: string) =>
    process.stdout.write(`${printable(line, { multiline: true, maxChars: Infinity })}\n`);
  const rest = words.map((w) => redactor.redact(w));
  return subcommand({ p, rest, ...stores(), say });
}
