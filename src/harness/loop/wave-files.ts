// What a wave leaves to read: `spec.md` (what was asked) and `join.md` (how each branch
// ended) in its folder, as the public autoloop writes them, and the joined event's payload.
import { tail } from "./judge.js";
import type { Prompted } from "./prompt-step.js";
import type { BranchResult } from "./wave-branch.js";

/** The most of a branch's output the joined payload carries (the tail wins); its result.md has it all. */
const OUTPUT_CHARS = 2000;

function opening(trigger: string, prompted: Prompted): string {
  return (
    `Trigger: \`${trigger}\`\nOpening recent event: \`${prompted.recentEvent}\`\n` +
    `Opening roles: ${prompted.roles.join(", ")}\nOpening events: ${prompted.allowed.join(", ")}\n`
  );
}

const bullets = (items: readonly string[]) => items.map((i) => `- ${i}`).join("\n");

export function specText(
  waveId: string,
  trigger: string,
  prompted: Prompted,
  objectives: string[],
): string {
  return `# Parallel Wave ${waveId}\n\n${opening(trigger, prompted)}\n## Branch Objectives\n${bullets(objectives)}`;
}

export function joinText(
  waveId: string,
  trigger: string,
  prompted: Prompted,
  objectives: string[],
  results: readonly BranchResult[],
  elapsedMs: number,
): string {
  const items = results.map((r) => `\`${r.spec.branchId}\`: ${r.stopReason} (${r.elapsedMs}ms)`);
  return (
    `# Parallel Join ${waveId}\n\n${opening(trigger, prompted)}Total wave elapsed: \`${elapsedMs}ms\`\n\n` +
    `## Objectives\n${bullets(objectives)}\n\n## Branch Results\n${bullets(items)}`
  );
}

/**
 * The joined event's payload: the wave id on its first line (the public autoloop's whole
 * payload), then each branch's objective, stop reason and output, for the next prompt.
 */
export function joinedPayload(waveId: string, results: readonly BranchResult[]): string {
  const branches = results.map((r) => {
    const output = tail(r.output, OUTPUT_CHARS);
    return `## ${r.spec.branchId}: ${r.spec.objective}\nStop reason: ${r.stopReason} (${r.elapsedMs}ms)\n${output.trim() || "(no output)"}`;
  });
  return `${waveId}\n\n${branches.join("\n\n")}`;
}
