// The emit hooks (pre_emit, post_emit), run by the harness after the agent's turn, once per
// event the agent emitted, in order. The event tool is the agent's own process, whose
// environment (where the harness hands it the allowed events and gates) the agent can rewrite,
// so hooks run there could be skipped; here they run as every hook does, and what they decide
// stands: a failing `block` pre_emit refuses the event (`event.invalid`, `via: "pre_emit"`,
// which takes its route back), a `mutate = "event"` one replaces it (the refusal, then the
// rewritten event, `source: "hook"`), and post_emit follows each event that stands.
import type { JournalRecord } from "../../journal/codec.js";
import { journalTimestamp } from "../../journal/codec.js";
import { TOPIC } from "../emit.js";
import type { HookMutation } from "../preset/hook-mutation.js";
import { isSystemTopic } from "../run-view.js";
import { MAX_OUTPUT_BYTES, payloadFits } from "./hook-run.js";
import { phaseHooks, phaseStage } from "./hook-step.js";
import type { Terminal } from "./judge.js";
import type { Prompted } from "./prompt-step.js";
import type { Emitted } from "./record-step.js";
import type { Run } from "./run-state.js";

export type EmitHooked = { kind: "ended"; ended: Terminal } | { kind: "go"; emitted: Emitted };

type AgentRecord = Extract<JournalRecord, { shape: "agent" }>;

export async function emitHookStage(
  run: Run,
  iteration: number,
  prompted: Prompted,
  emitted: Emitted,
): Promise<EmitHooked> {
  const hooked = phaseHooks(run, "pre_emit").length + phaseHooks(run, "post_emit").length;
  if (hooked === 0 || emitted.length === 0) return { kind: "go", emitted };
  const kept: Emitted = [];
  // The run stopped at an event's hooks (suspended, blocked after it, interrupted): that event
  // (unless its pre_emit passed) and every later one count for nothing, as though never emitted.
  const stop = (from: number, ended: Terminal): EmitHooked => {
    for (const r of emitted.slice(from))
      refuse(
        run,
        iteration,
        prompted,
        r.topic,
        "the run stopped at the emit hooks before this event stood",
      );
    return finish(run, { kind: "ended", ended });
  };
  for (const [i, record] of emitted.entries()) {
    if (record.shape !== "agent") continue;
    const event = { topic: record.topic, payload: record.payload };
    if (unreadableToGuards(run, record.payload)) {
      refuse(run, iteration, prompted, record.topic, UNREADABLE);
      continue;
    }
    const pre = await phaseStage(run, "pre_emit", { iteration, event });
    if (pre.ended !== undefined) return stop(i, pre.ended);
    if (pre.blocked !== undefined) {
      refuse(run, iteration, prompted, record.topic, pre.blocked);
      continue;
    }
    const mutation = pre.mutation?.kind === "event" ? usable(run, pre.mutation) : undefined;
    const stands = mutation ? rewrite(run, iteration, prompted, record, mutation) : record;
    kept.push(stands);
    const post = await phaseStage(run, "post_emit", {
      iteration,
      event: { topic: stands.topic, payload: stands.payload },
    });
    if (post.ended !== undefined) return stop(i + 1, post.ended);
  }
  return finish(run, { kind: "go", emitted: kept });
}

const UNREADABLE = `its payload is past ${MAX_OUTPUT_BYTES / 1024} KiB or holds a NUL: the pre_emit hooks that guard events are not handed it`;

/**
 * An event a guarding pre_emit hook (`block`, `suspend`) could not read: an agent that pads its
 * payload must not pass a guard that would have refused what it says.
 */
function unreadableToGuards(run: Run, payload: string): boolean {
  if (payloadFits(payload)) return false;
  return phaseHooks(run, "pre_emit").some((h) => h.onError !== "warn");
}

/** The view reads the refusals and rewritten events: the next prompt routes by them. */
function finish(run: Run, outcome: EmitHooked): EmitHooked {
  run.view.refresh();
  return outcome;
}

/** The public record of a refused emit, with ours: which phase refused it and why. */
function refuse(run: Run, iteration: number, prompted: Prompted, topic: string, reason: string) {
  run.journal.system("event.invalid", iteration, {
    recent_event: prompted.recentEvent,
    emitted: topic,
    suggested_roles: prompted.roles.join(","),
    allowed_events: prompted.allowed.join(","),
    via: "pre_emit",
    reason,
  });
}

/** A rewrite into a topic an agent could emit; a harness topic or a malformed one is ignored. */
function usable(
  run: Run,
  mutation: Extract<HookMutation, { kind: "event" }>,
): Extract<HookMutation, { kind: "event" }> | undefined {
  const topic = mutation.topic;
  if (topic === undefined || (TOPIC.test(topic) && !isSystemTopic(topic))) return mutation;
  run.progress(
    `warning: a pre_emit hook asked for the topic ${JSON.stringify(topic)}, which an agent cannot emit: its event mutation is ignored`,
  );
  return undefined;
}

/** The event a pre_emit hook rewrote: the agent's refused, the hook's journaled in its place. */
function rewrite(
  run: Run,
  iteration: number,
  prompted: Prompted,
  record: AgentRecord,
  mutation: Extract<HookMutation, { kind: "event" }>,
): AgentRecord {
  const topic = mutation.topic ?? record.topic;
  const payload = mutation.payload ?? record.payload;
  refuse(run, iteration, prompted, record.topic, `rewritten by a pre_emit hook as ${topic}`);
  run.journal.operator(topic, iteration, payload, "hook");
  run.progress(`iteration ${iteration}: a pre_emit hook rewrote ${record.topic} as ${topic}`);
  return { ...record, topic, payload, source: "hook", ts: journalTimestamp() };
}
