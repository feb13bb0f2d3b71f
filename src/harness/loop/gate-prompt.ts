// What the prompt says of evidence gates: which allowed events need evidence (and in what
// form), and the refusal of the agent's last emit, so it can supply the evidence next time.
import type { Gate } from "../preset/evidence.js";
import type { RunView } from "../run-view.js";

function requirementText(gate: Gate): string {
  const typed = gate.evidence.map((e) => {
    const bounds = [
      e.min === undefined ? "" : `>= ${e.min}`,
      e.max === undefined ? "" : `<= ${e.max}`,
      ["test", "lint", "typecheck"].includes(e.type) ? `status ${e.status ?? "passed"}` : "",
    ].filter((b) => b !== "");
    return bounds.length === 0 ? e.key : `${e.key} (${bounds.join(", ")})`;
  });
  return [...gate.requires, ...typed].join(", ");
}

/** The gates of the events the agent may emit now ("" when none has one). */
export function evidenceRules(gates: readonly Gate[], allowed: readonly string[]): string {
  const relevant = gates.filter((g) => allowed.length === 0 || allowed.includes(g.event));
  if (relevant.length === 0) return "";
  return (
    "Evidence gates: these events are refused without machine-checkable evidence in the payload, as key=value tokens or a JSON object (prose does not count):\n" +
    relevant.map((g) => `- ${g.event} needs ${requirementText(g)}; else ${g.blocked}\n`).join("") +
    `For example: emit ${relevant[0]!.event} "${relevant[0]!.requires[0] ?? relevant[0]!.evidence[0]?.key ?? "tests"}=…"\n\n`
  );
}

/** The refusal of the last iteration's gated emit, if there was one. */
export function evidenceNote(view: RunView, iteration: number): string {
  const refused = view.lastEvidence;
  if (refused === undefined || refused.iteration !== String(iteration - 1)) return "";
  const why = [
    refused.missing ? `missing ${refused.missing}` : "",
    refused.thresholdFailure ? `not passing ${refused.thresholdFailure}` : "",
  ].filter((w) => w !== "");
  return (
    `Evidence gate: your ${refused.gatedEvent} in iteration ${refused.iteration} was refused (${why.join("; ") || "no evidence"}); ${refused.topic} was journaled instead.\n` +
    `Emit ${refused.gatedEvent} again only with its evidence in the payload.\n\n`
  );
}
