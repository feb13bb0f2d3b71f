// Markdown for the artifact projections (`autoloop inspect … --format md`).
import type { ChainView, IterationText, IterationView, RunMetrics } from "./projections.js";

const fence = (text: string) => {
  const ticks = text.includes("```") ? "````" : "```";
  return `${ticks}\n${text.replace(/\n$/, "")}\n${ticks}`;
};

export function scratchpadMd(run: string, its: readonly IterationView[]): string {
  if (its.length === 0) return `# Scratchpad of ${run}\n\nNo iterations yet.\n`;
  const parts = [`# Scratchpad of ${run}`];
  for (const it of its) {
    parts.push(`## Iteration ${it.iteration}`);
    const facts = [
      it.suggestedRoles && `suggested roles: ${it.suggestedRoles}`,
      it.recentEvent && `after: ${it.recentEvent}`,
      it.exitCode !== "" && `exit ${it.exitCode} in ${it.elapsedS} s`,
      it.refusedCompletions > 0 &&
        `completion refused ${it.refusedCompletions}× (task.gate: tasks open)`,
      it.invalidEvents > 0 && `${it.invalidEvents} event(s) not allowed`,
    ].filter(Boolean);
    if (facts.length > 0) parts.push(facts.map((f) => `- ${f}`).join("\n"));
    for (const e of it.events)
      parts.push(`- emitted \`${e.topic}\`${e.payload ? `: ${e.payload}` : ""}`);
    if (it.output !== "") parts.push(fence(it.output));
  }
  return `${parts.join("\n\n")}\n`;
}

export function iterationTextMd(what: string, run: string, t: IterationText): string {
  return `# ${what} of ${run}, iteration ${t.iteration}\n\n${fence(t.text)}\n`;
}

export function metricsMd(m: RunMetrics): string {
  const rows: Array<[string, string]> = [
    ["preset", m.preset],
    ["trigger", m.trigger],
    ["outcome", m.reason ? `${m.outcome} (${m.reason})` : m.outcome],
    ["iterations", String(m.iterations)],
    ["wall time", m.wallSeconds === undefined ? "-" : `${m.wallSeconds.toFixed(3)} s`],
    ["agent time", `${m.agentSeconds.toFixed(3)} s`],
    [
      "harness overhead per iteration",
      m.overheadPerIteration === undefined
        ? "-"
        : `${(m.overheadPerIteration * 1000).toFixed(1)} ms`,
    ],
    ["refused completions (task.gate)", String(m.refusedCompletions)],
    ["events not allowed (event.invalid)", String(m.invalidEvents)],
    ["iterations with a non-zero exit", String(m.nonZeroExits)],
  ];
  const events = Object.entries(m.eventsByTopic)
    .sort((a, b) => b[1] - a[1])
    .map(([topic, n]) => `| \`${topic}\` | ${n} |`);
  return [
    `# Metrics of ${m.run}`,
    "",
    "| | |",
    "|---|---|",
    ...rows.map(([k, v]) => `| ${k} | ${v} |`),
    "",
    "## Events emitted",
    "",
    events.length === 0 ? "None." : ["| topic | count |", "|---|---|", ...events].join("\n"),
    "",
  ].join("\n");
}

export function chainMd(c: ChainView): string {
  const head = `# Chain ${c.name} (${c.chainRun}): ${c.status}${c.reason ? ` (${c.reason})` : ""}`;
  const rows = c.steps.map(
    (s) =>
      `| ${s.step} | ${s.preset} | ${s.runId} | ${s.outcome}${s.reason ? ` (${s.reason})` : ""} | ${s.iterations} |`,
  );
  const table = [
    "| step | preset | run | outcome | iterations |",
    "|---|---|---|---|---|",
    ...rows,
  ];
  const objective = c.objective ? [`Objective: ${c.objective}`, ""] : [];
  return [head, "", ...objective, ...table, ""].join("\n");
}
