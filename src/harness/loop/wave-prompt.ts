// What the prompt says of parallel waves: how to open one (when the preset enables them), and
// the results of the wave that joined in the last iteration.

import { EXPLORE, triggerRefusal } from "../preset/parallel.js";
import type { Preset } from "../preset/preset.js";
import type { RunView } from "../run-view.js";
import { isSystemTopic } from "../run-view.js";

/** The rules, with the dispatch triggers the agent may use now ("" when waves are off). */
export function parallelRules(
  preset: Preset,
  allowed: readonly string[],
  stateDir: string,
): string {
  const { parallel, event_loop } = preset.config;
  if (!parallel.enabled) return "";
  const ctx = {
    enabled: true,
    allowedEvents: allowed,
    completionEvent: event_loop.completion_event,
    isSystemTopic,
  };
  const dispatch = allowed
    .map((e) => `${e}.parallel`)
    .filter((t) => t !== EXPLORE && triggerRefusal(t, ctx) === undefined);
  return (
    "Structured parallelism:\n" +
    `- \`${EXPLORE}\` fans out exploratory branches of the current roles before you choose the real next event.\n` +
    (dispatch.length > 0
      ? `- Dispatch fan-out is available now: ${dispatch.map((t) => `\`${t}\``).join(", ")} (each branch runs the roles that event routes to).\n`
      : "- Dispatch fan-out (`<allowed-event>.parallel`) is not available after this event.\n") +
    `- The payload is a Markdown bullet or numbered list of 1 to ${parallel.max_branches} distinct branch objectives, one a line.\n` +
    "- Fan out only when the branches are concrete, independent and worth the wait: the loop waits for every branch.\n" +
    `- Branches run at once, in isolated state under ${stateDir}/waves/; only the harness emits \`*.parallel.joined\`, with their results.\n\n`
  );
}

/** The results of the wave that joined in the previous iteration, if one did. */
export function joinNote(view: RunView, iteration: number): string {
  const join = view.lastJoin;
  if (join === undefined || join.iteration !== String(iteration - 1)) return "";
  return `Parallel wave joined (${join.topic}); branch results:\n${join.payload}\n\n`;
}
