// What a hook's stdout asks to change (`mutate`), read as the public autoloop reads it: for
// "prompt" a `<<<AUTOLOOP_MUTATE>>>…<<<END>>>` block, else a JSON object's `prompt`, else the
// whole trimmed stdout; for "event" only a JSON object's `topic` and/or `payload`. Empty or
// unreadable output asks nothing: a hook may run for its side effects alone.
import type { HookMutate, HookPhase } from "./hooks.js";

export type HookMutation =
  | { kind: "prompt"; prompt: string }
  | { kind: "event"; topic?: string; payload?: string };

/** The phase whose input each kind rewrites; elsewhere the hook runs and its output changes nothing. */
export const MUTATION_PHASE: Record<Exclude<HookMutate, "none">, HookPhase> = {
  prompt: "pre_iteration",
  event: "pre_emit",
};

/** Why a hook's `mutate` changes nothing in its phase (validate's warning); undefined when it can. */
export function idleMutation(phase: string, mutate: unknown): string | undefined {
  if (mutate !== "prompt" && mutate !== "event") return undefined;
  const where = MUTATION_PHASE[mutate];
  return phase === where
    ? undefined
    : `only a ${where} hook's output can change the ${mutate}: this one runs, its output changes nothing`;
}

const FENCE = /<<<AUTOLOOP_MUTATE>>>\n?([\s\S]*?)\n?<<<END>>>/;

export function parseMutation(stdout: string, mutate: HookMutate): HookMutation | undefined {
  const trimmed = stdout.trim();
  if (mutate === "none" || trimmed === "") return undefined;
  const fenced = FENCE.exec(stdout);
  if (fenced !== null && mutate === "prompt") return { kind: "prompt", prompt: fenced[1] ?? "" };
  const json = jsonStrings(trimmed);
  if (mutate === "event") {
    if (json?.topic === undefined && json?.payload === undefined) return undefined;
    return {
      kind: "event",
      ...(json.topic !== undefined && { topic: json.topic }),
      ...(json.payload !== undefined && { payload: json.payload }),
    };
  }
  // A JSON object that names no prompt (only a topic, say) asks nothing of the prompt.
  if (json !== undefined)
    return json.prompt === undefined ? undefined : { kind: "prompt", prompt: json.prompt };
  return { kind: "prompt", prompt: trimmed };
}

/** The string keys a directive may carry, when the text is a JSON object with at least one. */
function jsonStrings(
  text: string,
): { prompt?: string; topic?: string; payload?: string } | undefined {
  if (!text.startsWith("{")) return undefined;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) return undefined;
  const o = value as Record<string, unknown>;
  const out: { prompt?: string; topic?: string; payload?: string } = {};
  for (const key of ["prompt", "topic", "payload"] as const)
    if (typeof o[key] === "string") out[key] = o[key];
  return Object.keys(out).length > 0 ? out : undefined;
}
