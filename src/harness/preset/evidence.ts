// Evidence gates (`[[gate]]` in topology.toml, the public autoloop's semantics): whether an
// emitted event's payload carries the machine-checkable evidence its gate requires, and the
// record a refusal journals instead of the event (docs/formats.md, "Evidence gates").
import type { FieldValue } from "../../journal/codec.js";

export const EVIDENCE_TYPES = [
  "generic",
  "test",
  "lint",
  "typecheck",
  "coverage",
  "mutation",
] as const;
export type EvidenceType = (typeof EVIDENCE_TYPES)[number];

export interface EvidenceRequirement {
  key: string;
  type: EvidenceType;
  min?: number | undefined;
  max?: number | undefined;
  status?: string | undefined;
}

export interface Gate {
  event: string;
  /** Keys whose presence is enough (the reference's first form). */
  requires: string[];
  evidence: EvidenceRequirement[];
  /** Journaled when evidence is missing. */
  blocked: string;
  /** Journaled when evidence was given and did not pass; unset: `blocked`. */
  failed?: string | undefined;
}

/** What an emit of a gated event comes to. */
export type GateVerdict =
  | { kind: "pass" }
  | {
      kind: "refused";
      /** The topic journaled instead of the event. */
      topic: string;
      fields: Record<string, FieldValue>;
      /** What the agent is told (the emit's stderr). */
      message: string;
    };

/** `verify.passed` → `verify.blocked`; a topic without a dot gets `.blocked` appended. */
export function blockedTopicOf(event: string): string {
  const dot = event.lastIndexOf(".");
  return dot <= 0 ? `${event}.blocked` : `${event.slice(0, dot)}.blocked`;
}

interface Entry {
  raw: string;
  numeric?: number | undefined;
  status?: string | undefined;
}

const STATUS_WORDS = "passed|failed|failing|passing";
// A value must follow `=` at once (prose such as "tests: fine" is no evidence); quotes allowed.
const TOKEN = new RegExp(
  `([A-Za-z_][\\w.-]*)=("[^"]*"|'[^']*'|[^\\s,;]+)(?:\\s+(${STATUS_WORDS})\\b)?`,
  "g",
);

/** A number, "87%" read as 87; "5 passed" is none. */
function numeric(raw: string): number | undefined {
  const cleaned = raw.trim().replace(/%$/, "");
  const n = cleaned === "" ? Number.NaN : Number(cleaned);
  return Number.isFinite(n) ? n : undefined;
}

/** Empty strings, false, null, objects and arrays prove nothing. */
function isEvidence(v: unknown): boolean {
  if (typeof v === "string") return v.trim() !== "";
  if (typeof v === "number") return Number.isFinite(v);
  return v === true;
}

function jsonObject(payload: string): Record<string, unknown> | undefined {
  const trimmed = payload.trim();
  if (!trimmed.startsWith("{")) return undefined;
  try {
    const v: unknown = JSON.parse(trimmed);
    return typeof v === "object" && v !== null && !Array.isArray(v)
      ? (v as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}

/** One key's evidence: a JSON member (scalar, or `{value, status}`), else a `key=value` token. */
export function evidenceEntry(payload: string, key: string): Entry | undefined {
  const obj = jsonObject(payload);
  if (obj !== undefined) {
    if (!Object.hasOwn(obj, key)) return undefined;
    const v = obj[key];
    if (typeof v === "object" && v !== null && !Array.isArray(v)) {
      const rec = v as Record<string, unknown>;
      const raw =
        typeof rec.value === "string" || typeof rec.value === "number" ? String(rec.value) : "";
      if (raw.trim() === "") return undefined;
      const status = typeof rec.status === "string" ? rec.status : undefined;
      return { raw, numeric: numeric(raw), status };
    }
    return isEvidence(v) ? { raw: String(v), numeric: numeric(String(v)) } : undefined;
  }
  for (const m of payload.matchAll(TOKEN)) {
    if (m[1] !== key) continue;
    const value = m[2]!.replace(/^["']|["']$/g, "").trim();
    if (value === "") return undefined;
    return { raw: m[3] ? `${value} ${m[3]}` : value, numeric: numeric(value), status: m[3] };
  }
  return undefined;
}

/** Keys present with a value: JSON members, or `key=value` tokens (the `requires` form). */
export function evidenceKeys(payload: string): Set<string> {
  const present = new Set<string>();
  const obj = jsonObject(payload);
  if (obj !== undefined)
    for (const [k, v] of Object.entries(obj)) if (isEvidence(v)) present.add(k);
  for (const m of payload.matchAll(TOKEN))
    if (m[2]!.replace(/^["']|["']$/g, "").trim() !== "") present.add(m[1]!);
  return present;
}

export interface Shortfall {
  key: string;
  type: EvidenceType;
  reason: "missing" | "threshold" | "status";
  detail: string;
}

/** Why one typed requirement is not met by `payload`; undefined when it is. */
export function shortfallOf(req: EvidenceRequirement, payload: string): Shortfall | undefined {
  const entry = evidenceEntry(payload, req.key);
  const short = (reason: Shortfall["reason"], detail: string): Shortfall => ({
    key: req.key,
    type: req.type,
    reason,
    detail,
  });
  if (entry === undefined)
    return short("missing", `evidence key \`${req.key}\` not found in payload`);
  if (["test", "lint", "typecheck"].includes(req.type)) {
    const expected = req.status ?? "passed";
    if (entry.status !== undefined && entry.status !== expected)
      return short("status", `expected status \`${expected}\`, got \`${entry.status}\``);
  }
  if ((req.type === "coverage" || req.type === "mutation") && entry.numeric !== undefined) {
    if (req.min !== undefined && entry.numeric < req.min)
      return short("threshold", `value ${entry.numeric} is below min ${req.min}`);
    if (req.max !== undefined && entry.numeric > req.max)
      return short("threshold", `value ${entry.numeric} is above max ${req.max}`);
  }
  return undefined;
}

const list = (items: readonly string[]) =>
  items.length === 0 ? "(none)" : items.map((i) => `\`${i}\``).join(", ");

/**
 * The gate's word on an emit of its event: first the `requires` keys (all refusals go to
 * `blocked`), then the typed `evidence` (missing: `blocked`; given but not passing: `failed`,
 * else `blocked`). Field names and order are the reference's.
 */
export function checkGate(gate: Gate, topic: string, payload: string): GateVerdict {
  const present = evidenceKeys(payload);
  const missing = gate.requires.filter((k) => !present.has(k));
  if (missing.length > 0)
    return {
      kind: "refused",
      topic: gate.blocked,
      fields: {
        gated_event: topic,
        missing_evidence: missing.join(","),
        required_evidence: gate.requires.join(","),
        summary: payload,
      },
      message: `\`${topic}\` requires evidence ${list(gate.requires)}; missing: ${list(missing)}. Emitted \`${gate.blocked}\` instead. Include the evidence in the payload (e.g. \`key=value\`) and emit \`${topic}\` again.`,
    };
  const shortfalls = gate.evidence.flatMap((req) => shortfallOf(req, payload) ?? []);
  if (shortfalls.length === 0) return { kind: "pass" };
  const target = shortfalls.some((s) => s.reason === "missing")
    ? gate.blocked
    : (gate.failed ?? gate.blocked);
  const failing = shortfalls.filter((s) => s.reason !== "missing");
  const fields: Record<string, FieldValue> = {
    gated_event: topic,
    missing_evidence: shortfalls
      .filter((s) => s.reason === "missing")
      .map((s) => s.key)
      .join(","),
    evidence_type: [...new Set(shortfalls.map((s) => s.type))].join(","),
    required_evidence: gate.evidence.map((e) => e.key).join(","),
  };
  if (failing.length > 0)
    fields.threshold_failure = failing.map((s) => `${s.key}:${s.detail}`).join(",");
  fields.summary = payload;
  const why = shortfalls.map((s) => `${s.key} (${s.reason}: ${s.detail})`).join("; ");
  return {
    kind: "refused",
    topic: target,
    fields,
    message: `\`${topic}\` failed typed evidence validation: ${why}. Emitted \`${target}\` instead.`,
  };
}

/** The gate of `topic`, if one guards it. */
export function gateFor(gates: readonly Gate[], topic: string): Gate | undefined {
  return gates.find((g) => g.event === topic);
}

/** Topics a gate journals instead of its event. */
export function gateOutcomeTopics(gates: readonly Gate[]): Set<string> {
  return new Set(
    gates.flatMap((g) => (g.failed === undefined ? [g.blocked] : [g.blocked, g.failed])),
  );
}
