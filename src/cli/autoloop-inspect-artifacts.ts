// `autoloop inspect scratchpad|prompt|output|memory|chain|metrics`: a run's artifacts, each
// a projection of the journal (memory: of its memory files), as markdown or JSON.
import { join } from "node:path";
import {
  chainOf,
  metrics,
  outputOf,
  promptOf,
  scratchpad,
} from "../harness/artifacts/projections.js";
import { chainMd, iterationTextMd, metricsMd, scratchpadMd } from "../harness/artifacts/render.js";
import { entryCount } from "../harness/memory/materialize.js";
import { renderMemory } from "../harness/memory/render.js";
import { MemoryStore } from "../harness/memory/store.js";
import { readJournal } from "../journal/reader.js";
import { readRegistry } from "../journal/registry-view.js";
import { UserError } from "../util/errors.js";

export const ARTIFACT_VIEWS = ["scratchpad", "prompt", "output", "memory", "chain", "metrics"];

export function inspectArtifact(
  what: string,
  opts: {
    autoloopDir: string;
    run: string | undefined;
    iteration: number | undefined;
    format: "md" | "json";
  },
): string {
  const journalFile = join(opts.autoloopDir, "journal.jsonl");
  const { items } = readJournal(journalFile);
  const run = opts.run ?? latestRun(what, items, journalFile);
  const mine = items.filter((r) => r.run === run);
  if (mine.length === 0 && what !== "memory")
    throw new UserError(`no journal records of run ${JSON.stringify(run)} in ${journalFile}`);
  const out = (value: unknown, md: () => string) =>
    opts.format === "json" ? `${JSON.stringify(value, null, 2)}\n` : md();
  const failing = <T>(f: () => T): T => {
    try {
      return f();
    } catch (err) {
      throw new UserError(`autoloop inspect ${what} --run ${run}: ${(err as Error).message}`);
    }
  };
  switch (what) {
    case "scratchpad": {
      const its = scratchpad(mine);
      return out({ run, iterations: its }, () => scratchpadMd(run, its));
    }
    case "prompt":
    case "output": {
      const t = failing(() => (what === "prompt" ? promptOf : outputOf)(mine, opts.iteration));
      return out({ run, ...t }, () =>
        iterationTextMd(what === "prompt" ? "Prompt" : "Output", run, t),
      );
    }
    case "metrics": {
      const m = metrics(run, mine);
      return out(m, () => metricsMd(m));
    }
    case "chain": {
      const c = failing(() => chainOf(run, items));
      return out(c, () => chainMd(c));
    }
    default: {
      const project = new MemoryStore(join(opts.autoloopDir, "memory.jsonl")).view();
      const own = new MemoryStore(join(opts.autoloopDir, "runs", run, "memory.jsonl")).view();
      const text = renderMemory(project, own, 0).text;
      return out(
        { run, project, run_memory: own, entries: entryCount(project) + entryCount(own) },
        () => `# Memory seen by ${run}\n\n${text === "" ? "No memory entries." : text}\n`,
      );
    }
  }
}

/** The newest run (for `chain`: the newest chain) when --run is not given. */
function latestRun(
  what: string,
  items: ReturnType<typeof readJournal>["items"],
  file: string,
): string {
  if (what === "chain") {
    const chain = items.findLast((r) => r.topic === "chain.start");
    if (chain === undefined) throw new UserError(`no chain in ${file}; pass --run <chain-run-id>`);
    return chain.run;
  }
  const runs = [...readRegistry(file).keys()];
  const last = runs.at(-1) ?? items.findLast((r) => r.topic === "loop.start")?.run;
  if (last === undefined) throw new UserError(`no runs in ${file}; pass --run ID`);
  return last;
}
