// Structured parallel waves, the pure rules (docs/formats.md, "Parallel waves"): which topics
// trigger a wave, which one only the harness may emit, where a trigger is allowed, and the
// branch objectives a trigger's payload lists.

/** The exploratory trigger: its branches run the opening roles, and the parent resumes as it was. */
export const EXPLORE = "explore.parallel";

const TRIGGER_SUFFIX = ".parallel";
const JOINED_SUFFIX = ".parallel.joined";

/** `explore.parallel`, or `<event>.parallel` (a dispatch wave to the roles `<event>` routes to). */
export function isParallelTrigger(topic: string): boolean {
  return topic.endsWith(TRIGGER_SUFFIX) && topic.length > TRIGGER_SUFFIX.length;
}

/** `<trigger>.joined`: the harness's word that a wave's branches are done; never an agent's. */
export function isJoinedTopic(topic: string): boolean {
  return topic.endsWith(JOINED_SUFFIX);
}

/** The event a dispatch trigger fans out (`review` for `review.parallel`); "" for explore. */
export function dispatchBase(trigger: string): string {
  if (trigger === EXPLORE || !isParallelTrigger(trigger)) return "";
  return trigger.slice(0, -TRIGGER_SUFFIX.length);
}

export function joinedTopicOf(trigger: string): string {
  return `${trigger}.joined`;
}

/** The event a joined topic routes as: its dispatch base (`review` for `review.parallel.joined`). */
export function joinedRoutingBasis(topic: string): string {
  if (!isJoinedTopic(topic) || topic === `${EXPLORE}.joined`) return topic;
  return topic.slice(0, -JOINED_SUFFIX.length);
}

export interface TriggerContext {
  enabled: boolean;
  /** The events the emitting roles may emit now (empty: no topology, any event). */
  allowedEvents: readonly string[];
  completionEvent: string;
  /** Whether the harness owns a topic (`loop.*`, `wave.*`, ...): never a dispatch base. */
  isSystemTopic: (topic: string) => boolean;
}

/** Why `topic` (a trigger or a joined topic) may not be emitted now; undefined: it may. */
export function triggerRefusal(topic: string, ctx: TriggerContext): string | undefined {
  if (isJoinedTopic(topic))
    return `${topic} is emitted by the harness only, when a wave's branches have joined`;
  if (!ctx.enabled)
    return `parallel waves are off in this preset ([parallel] enabled = false): emit ${dispatchBase(topic) || "an allowed event"} instead`;
  if (topic === EXPLORE) return undefined;
  const base = dispatchBase(topic);
  if (base === ctx.completionEvent)
    return `${base} is the completion event: it cannot fan out (emit it once the work is done)`;
  if (ctx.isSystemTopic(base) || base.startsWith("wave.") || isParallelTrigger(base))
    return `${base} is a harness topic: it cannot fan out`;
  if (!ctx.allowedEvents.includes(base))
    return `${base} is not an allowed event now (${ctx.allowedEvents.join(", ") || "no topology: only explore.parallel fans out"}): a wave fans out an allowed handoff event`;
  return undefined;
}

export type ParsedObjectives =
  | { kind: "ok"; objectives: string[] }
  | { kind: "refused"; reason: "invalid_branch_list" | "empty_branch_list" | "too_many_branches" };

/**
 * The branch objectives of a trigger's payload: a Markdown bullet (`- `, `* `) or numbered
 * (`1. `) list, one objective a line; any other non-blank line makes the list invalid.
 */
export function parseObjectives(payload: string, maxBranches: number): ParsedObjectives {
  const objectives: string[] = [];
  for (const raw of payload.split("\n")) {
    const line = raw.trim();
    if (line === "") continue;
    const item = /^(?:[-*]|\d+\.)\s+(.*)$/.exec(line)?.[1]?.trim();
    if (item === undefined || item === "")
      return { kind: "refused", reason: "invalid_branch_list" };
    objectives.push(item);
  }
  if (objectives.length === 0) return { kind: "refused", reason: "empty_branch_list" };
  if (objectives.length > maxBranches) return { kind: "refused", reason: "too_many_branches" };
  return { kind: "ok", objectives };
}

/** What an agent is told when its trigger's payload is refused. */
export function objectivesHint(reason: string, maxBranches: number): string {
  return `${reason}: the payload must be a Markdown bullet or numbered list of 1 to ${maxBranches} branch objectives, one a line (e.g. "- check the parser\\n- check the CLI")`;
}
