// The layout's rules (docs/architecture.md): folders by program (harness/, scheduler/,
// monitor/) over shared leaves (journal/, util/, incidents/) that import no program; imports
// form no cycle between programs, folders or files (type-only imports included); a file past
// 600 lines is a smell worth a look (no file is split only to fit a size). Read from the
// source, so a change that breaks them fails.
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, normalize, relative } from "node:path";
import { describe, expect, it } from "vitest";

const SRC = join(import.meta.dirname, "..", "src");
const MAX_LINES = 600;

function sourceFiles(dir = SRC): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory()
      ? sourceFiles(join(dir, e.name))
      : e.name.endsWith(".ts")
        ? [join(dir, e.name)]
        : [],
  );
}

/** The folder under src/ of a file ("scheduler/timing" for src/scheduler/timing/cron.ts). */
const folderOf = (file: string) => dirname(relative(SRC, file));

const PROGRAMS = ["harness", "scheduler", "monitor"];
const SHARED = ["journal", "util", "incidents"];

/** The program a file serves, its shared leaf, or its front end (cli, web, mcp, ...). */
const programOf = (file: string) => relative(SRC, file).split("/")[0]!;

/** Import edges between the keys `key` gives files (folders, or the files themselves). */
function importGraph(key: (file: string) => string): Map<string, Set<string>> {
  const graph = new Map<string, Set<string>>();
  for (const file of sourceFiles()) {
    const from = key(file);
    for (const m of readFileSync(file, "utf8").matchAll(/from\s+"(\.{1,2}\/[^"]+)"/g)) {
      const to = key(normalize(join(dirname(file), m[1]!.replace(/\.js$/, ".ts"))));
      if (to === from) continue;
      if (!graph.has(from)) graph.set(from, new Set());
      graph.get(from)!.add(to);
    }
  }
  return graph;
}

const folderGraph = () => importGraph(folderOf);

function cycles(graph: Map<string, Set<string>>): string[] {
  const found: string[] = [];
  const state = new Map<string, "open" | "done">();
  const visit = (node: string, path: string[]) => {
    state.set(node, "open");
    for (const next of graph.get(node) ?? []) {
      if (state.get(next) === "open") found.push([...path, node, next].join(" → "));
      else if (state.get(next) === undefined) visit(next, [...path, node]);
    }
    state.set(node, "done");
  };
  for (const node of graph.keys()) if (state.get(node) === undefined) visit(node, []);
  return found;
}

/** Each top-level folder's imports outside itself, as folders ("scheduler/ledger", "util"). */
function importsOutside(): Map<string, Set<string>> {
  const out = new Map<string, Set<string>>();
  for (const file of sourceFiles()) {
    const top = programOf(file);
    for (const m of readFileSync(file, "utf8").matchAll(/from\s+"(\.{1,2}\/[^"]+)"/g)) {
      const target = normalize(join(dirname(file), m[1]!.replace(/\.js$/, ".ts")));
      if (programOf(target) === top) continue;
      if (!out.has(top)) out.set(top, new Set());
      out.get(top)!.add(folderOf(target));
    }
  }
  return out;
}

/** The list between `<!-- imports -->` markers in docs/architecture.md, folder by folder. */
function documentedImports(): Map<string, Set<string>> {
  const doc = readFileSync(join(SRC, "..", "docs", "architecture.md"), "utf8");
  const block = /<!-- imports -->([\s\S]*?)<!-- \/imports -->/.exec(doc)?.[1] ?? "";
  const listed = new Map<string, Set<string>>();
  for (const item of block.split(/\n\s*- /).slice(1)) {
    const [head, ...rest] = item.split(":");
    const folder = /`([\w-]+)\/`/.exec(head!)?.[1];
    if (folder === undefined) continue;
    listed.set(folder, new Set([...rest.join(":").matchAll(/`([\w/-]+)`/g)].map((x) => x[1]!)));
  }
  return listed;
}

describe("source layout", () => {
  it("imports across programs exactly what docs/architecture.md lists", () => {
    const actual = importsOutside();
    const listed = documentedImports();
    expect(listed.size).toBeGreaterThan(5);
    for (const [folder, imports] of listed)
      expect([...(actual.get(folder) ?? [])].sort(), `${folder}/ imports`).toEqual(
        [...imports].sort(),
      );
  });

  it("has no import cycle between src/ folders", () => {
    const graph = folderGraph();
    expect(graph.size).toBeGreaterThan(10);
    expect(cycles(graph)).toEqual([]);
  });

  it("has a folder per program, none in a cycle, over shared leaves that import no program", () => {
    const graph = importGraph(programOf);
    for (const program of PROGRAMS) expect(graph.has(program), program).toBe(true);
    expect(cycles(graph)).toEqual([]);
    for (const leaf of SHARED) {
      const imports = [...(graph.get(leaf) ?? [])].filter((to) => !SHARED.includes(to));
      expect(imports, `${leaf}/ imports`).toEqual([]);
    }
  });

  it("has no import cycle between src/ files", () => {
    const graph = importGraph((file) => relative(SRC, file));
    expect(graph.size).toBeGreaterThan(100);
    expect(cycles(graph)).toEqual([]);
  });

  it("finds a cycle when there is one (the check itself works)", () => {
    const graph = new Map([
      ["daemon", new Set(["monitor"])],
      ["monitor", new Set(["daemon"])],
    ]);
    expect(cycles(graph)).toEqual(["daemon → monitor → daemon"]);
  });

  it(`keeps every source file within ${MAX_LINES} lines`, () => {
    const long = sourceFiles()
      .map((f) => ({
        file: relative(SRC, f),
        lines: readFileSync(f, "utf8").split("\n").length - 1,
      }))
      .filter((f) => f.lines > MAX_LINES);
    expect(long).toEqual([]);
  });

  it("loads neither classic zod nor execa in the harness (`autoloop` starts once per run)", () => {
    // Each is several times the harness's own code in the bundle, and a run pays to load it:
    // the harness uses zod/mini and node:child_process.
    const reached = new Set<string>();
    const walk = (file: string) => {
      if (reached.has(file)) return;
      reached.add(file);
      const text = readFileSync(file, "utf8");
      // Static imports and the CLI's lazy `import("./...")` of its subcommands.
      for (const m of text.matchAll(/(?:from\s+|import\()"(\.{1,2}\/[^"]+)"/g))
        walk(normalize(join(dirname(file), m[1]!.replace(/\.js$/, ".ts"))));
    };
    walk(join(SRC, "cli", "autoloop.ts"));
    const classic = [...reached].filter((f) =>
      /from\s+"(zod|execa)"/.test(readFileSync(f, "utf8")),
    );
    expect(reached.size).toBeGreaterThan(50);
    expect(classic.map((f) => relative(SRC, f))).toEqual([]);
  });
});
