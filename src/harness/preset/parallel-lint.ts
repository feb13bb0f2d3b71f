// What `validate` says of a preset's parallel waves: a trigger in a role's emits that the
// harness would refuse at every emit (waves off, an event the role may not emit, the
// completion event), a joined topic a role claims to emit, and a `timeout` aggregate without
// its deadline. (A handoff of a joined event no
// trigger opens is topology-lint.ts's "an event no role emits".)
import { dispatchBase, isJoinedTopic, isParallelTrigger, triggerRefusal } from "./parallel.js";
import type { Preset } from "./preset.js";

/** A finding of topology-lint.ts's shape (that file calls this one). */
interface ParallelFinding {
  severity: "error" | "warning";
  field: string;
  found: string;
  expected: string;
}

export function parallelFindings(preset: Preset): ParallelFinding[] {
  const { roles } = preset.topology;
  const { parallel, event_loop } = preset.config;
  const out: ParallelFinding[] = [];
  for (const role of roles)
    for (const topic of role.emits) {
      if (!isParallelTrigger(topic) && !isJoinedTopic(topic)) continue;
      // The role acts with at least its own emits allowed: a base outside them is never allowed.
      const refused = triggerRefusal(topic, {
        enabled: parallel.enabled,
        allowedEvents: role.emits,
        completionEvent: event_loop.completion_event,
        // The harness's own topics are refused as such at the emit; nothing to add here.
        isSystemTopic: () => false,
      });
      if (refused !== undefined)
        out.push({
          severity: "error",
          field: `role ${JSON.stringify(role.id)}.emits`,
          found: JSON.stringify(topic),
          expected: `a trigger the harness accepts (${refused})${isJoinedTopic(topic) ? ": remove it from emits" : fixOf(topic, parallel.enabled)}`,
        });
    }
  const { mode, timeout_ms: timeoutMs } = parallel.aggregate;
  if (parallel.enabled && mode === "timeout" && timeoutMs === 0)
    out.push({
      severity: "warning",
      field: "parallel.aggregate.timeout_ms",
      found: "0 (no deadline)",
      expected: `milliseconds, 1 or more, for mode = "timeout": without it a wave waits for every branch`,
    });
  return out;
}

function fixOf(topic: string, enabled: boolean): string {
  if (!enabled) return ": set [parallel] enabled = true, or remove it from emits";
  const base = dispatchBase(topic);
  return base === ""
    ? ""
    : `: add ${JSON.stringify(base)} to the role's emits, or remove the trigger`;
}
