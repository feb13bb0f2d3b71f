// What a preset's `[acceptance]` can get wrong, found before a run does (`autoloop-cron
// validate`): a metareview, whose EXIT completes the run past the acceptance gate.
import { criterionChecks, gateCommands } from "./acceptance.js";
import type { Preset } from "./preset.js";
import type { TopologyFinding } from "./topology-lint.js";

export function acceptanceFindings(preset: Preset): TopologyFinding[] {
  const { acceptance, review } = preset.config;
  const out: TopologyFinding[] = [];
  const checked = gateCommands(acceptance).length + criterionChecks(acceptance).length;
  if (checked > 0 && review?.enabled === true)
    out.push({
      severity: "warning",
      field: "review.enabled",
      found: `true, with ${checked} [acceptance] command(s)`,
      expected:
        "no metareview, or one trusted to end the run: its EXIT or TAKEOVER completes the run without the acceptance gate (as in the public autoloop)",
    });
  return out;
}
