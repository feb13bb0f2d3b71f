// Presets written for the public autoloop: what this harness does not implement is named in
// a warning (never refused, never silently ignored), backend kinds other than "command" run
// their CLI as a command, and a kind naming one of our CLIs (claude, codex, gemini) selects it.
import { AGENT_IDS, isCliAgent, resolveAgent } from "../agents/index.js";
import { EVIDENCE_TYPES } from "./evidence.js";
import { idleMutation } from "./hook-mutation.js";

/** Keys this harness reads, by section ("" = top level); anything else gets a warning. */
const KNOWN: Record<string, readonly string[]> = {
  "": [
    "event_loop",
    "backend",
    "tasks",
    "memory",
    "core",
    "worktree",
    "isolation",
    "harness",
    "outputs",
    "prices",
    "review",
    "profiles",
    "hooks",
    "hook",
    "chain_spawn",
    "parallel",
    "acceptance",
    // Topology keys, in a single-file preset.
    "name",
    "completion",
    "role",
    "handoff",
  ],
  event_loop: [
    "max_iterations",
    "completion_event",
    "completion_promise",
    "required_events",
    "max_runtime",
    "stall_iterations",
    "max_cost_usd",
    "max_tokens",
    "ask_event",
    "ask_timeout",
    "ask_poll_ms",
  ],
  backend: [
    "kind",
    "command",
    "agent",
    "args",
    "agent_args",
    "prompt_mode",
    "timeout_ms",
    "kill_grace_ms",
    "env",
    "model",
    // The public autoloop's opt-in for AUTOLOOP_USAGE_FILE; here a command backend always has it.
    "usage_from",
  ],
  tasks: ["prompt_budget_chars", "sync"],
  memory: ["prompt_budget_chars"],
  core: ["journal_file", "tasks_file", "memory_file", "isolation_mode", "state_dir"],
  worktree: ["enabled", "branch_prefix", "merge_strategy", "automerge", "cleanup"],
  isolation: ["enabled"],
  outputs: ["publish"],
  harness: ["instructions_file"],
  profiles: ["default"],
  hooks: ["pre_run", "pre_iteration", "post_iteration", "post_run", "strict", "timeout_ms"],
  chain_spawn: ["presets", "max_depth", "max_children"],
  parallel: ["enabled", "max_branches", "branch_timeout_ms", "aggregate"],
  acceptance: ["verify_cmds", "verify_cmd", "criteria", "timeout"],
  // The metareview (metareview.ts); provider, agent, model, profile, trust_all_tools and
  // environment_policy belong to the public autoloop's SDK backends.
  review: [
    "enabled",
    "every_iterations",
    "adversarial_first",
    "kind",
    "command",
    "args",
    "prompt_mode",
    "timeout_ms",
    "prompt",
    "prompt_file",
    "on_error",
    "min_confidence",
  ],
};

/** What some of the reference's keys do there, for the warning. */
const WHAT: Record<string, string> = {
  gate: "[[gate]] checks",
  stage: "[[stage]] fan-out branches",
  stage_runtime: "stage runtime controls",
  profiles: "role profiles",
};

/** Backend kinds of the reference and the CLI each falls back to here. */
const FALLBACK_COMMAND: Record<string, string> = { "claude-sdk": "claude", pi: "pi" };

const isAgentId = (v: string): boolean => (AGENT_IDS as readonly string[]).includes(v);
const hasModelFlag = (command: string) => resolveAgent({ command }).modelFlags !== undefined;

const isTable = (v: unknown): v is Record<string, unknown> =>
  typeof v === "object" && v !== null && !Array.isArray(v);

/**
 * Makes a reference preset's config runnable here (mutates `raw`) and returns the warnings:
 * a backend kind other than "command" runs `backend.command` (claude-sdk: `claude`, pi: `pi`
 * when none is given) as a command; unknown keys are named.
 */
export function adaptReferenceConfig(raw: Record<string, unknown>, singleFile = false): string[] {
  const warnings: string[] = [];
  const backend = raw.backend;
  // Our extension: a kind naming one of our CLIs selects it (its grammar, and its command).
  if (isTable(backend) && isCliAgent(backend.kind)) {
    backend.agent ??= backend.kind;
    backend.command ??= backend.kind;
    backend.kind = "command";
  }
  if (isTable(backend) && typeof backend.kind === "string" && backend.kind !== "command") {
    const kind = backend.kind;
    backend.command ??= FALLBACK_COMMAND[kind];
    backend.kind = "command";
    // The model goes with the CLI's flag when the command is one of ours (claude-sdk: claude).
    const modelFlag = typeof backend.command === "string" && hasModelFlag(backend.command);
    const dropped = ["provider", "trust_all_tools", ...(modelFlag ? [] : ["model"])].filter(
      (k) => backend[k] !== undefined,
    );
    warnings.push(
      `backend.kind = ${JSON.stringify(kind)} is not implemented here; running ${JSON.stringify(backend.command ?? "(no backend.command)")} as a command backend instead${dropped.length > 0 ? ` (ignoring backend.${dropped.join(", backend.")})` : ""}`,
    );
    for (const key of dropped) delete backend[key];
  }
  // The public autoloop's `backend.agent` is an ACP agent mode ("gpu-dev"); here it names one
  // of this harness's agents, and anything else is left to `backend.command`.
  if (isTable(backend) && typeof backend.agent === "string" && !isAgentId(backend.agent)) {
    warnings.push(
      `backend.agent = ${JSON.stringify(backend.agent)} (an ACP agent of another harness) is not implemented here and is ignored; the agent is chosen by backend.command (or backend.agent = ${AGENT_IDS.map((id) => JSON.stringify(id)).join(", ")})`,
    );
    delete backend.agent;
  }
  const review = raw.review;
  if (isTable(review) && typeof review.kind === "string" && review.kind !== "command") {
    const kind = review.kind;
    if (review.command === undefined && !(isTable(backend) && backend.command !== undefined))
      review.command = FALLBACK_COMMAND[kind];
    review.kind = "command";
    warnings.push(
      `review.kind = ${JSON.stringify(kind)} is not implemented here; the metareview runs ${JSON.stringify(review.command ?? (isTable(backend) ? backend.command : undefined) ?? "(no command)")} as a command backend instead`,
    );
  }
  for (const [key, value] of Object.entries(raw)) {
    const known = KNOWN[""]!.includes(key) || (singleFile && key === "gate");
    if (!known) {
      warnings.push(
        `${isTable(value) || Array.isArray(value) ? `[${key}]` : key} (${WHAT[key] ?? "a key of another harness"}) is not implemented here and is ignored${key === "gate" ? " (a preset folder's gates are read from its topology.toml)" : ""}`,
      );
      continue;
    }
    const keys = KNOWN[key];
    if (keys === undefined || !isTable(value)) continue;
    // Keys a preset folder's topology.toml holds, read (and warned about) from there.
    if (!singleFile && TOPOLOGY_KEYS.has(key)) continue;
    for (const sub of Object.keys(value))
      if (!keys.includes(sub))
        warnings.push(`${key}.${sub} is not implemented here and is ignored`);
  }
  warnings.push(...hookWarnings(raw.hook));
  const core = raw.core;
  if (isTable(core) && typeof core.state_dir === "string") {
    const journal =
      typeof core.journal_file === "string" ? core.journal_file : ".autoloop/journal.jsonl";
    if (!journal.startsWith(`${core.state_dir.replace(/\/$/, "")}/`))
      warnings.push(
        `core.state_dir = ${JSON.stringify(core.state_dir)}: state goes beside core.journal_file (${journal}) here`,
      );
  }
  return warnings;
}

const HOOK_KEYS = ["phase", "command", "on_error", "mutate", "timeout_ms"];

/** `[[hook]]` entries: keys this harness does not read, and what of them it does not do. */
function hookWarnings(hooks: unknown): string[] {
  if (!Array.isArray(hooks)) return [];
  return hooks.flatMap((h, i) => {
    if (!isTable(h)) return [];
    const out = unknownKeys(h, HOOK_KEYS, `hook[${i}]`);
    const idle = idleMutation(String(h.phase), h.mutate);
    if (idle !== undefined) out.push(`hook[${i}].mutate = ${JSON.stringify(h.mutate)}: ${idle}`);
    return out;
  });
}

const TOPOLOGY_KEYS: ReadonlySet<string> = new Set([
  "name",
  "completion",
  "role",
  "handoff",
  "gate",
]);

/** Role keys this harness reads; the reference's other `backend_*` keys are named below. */
const ROLE_KEYS = [
  "id",
  "emits",
  "prompt",
  "prompt_file",
  "description",
  "backend_command",
  "backend_model",
  "backend_args",
  "backend_prompt_mode",
  "backend_timeout_ms",
];

/** The reference's role backend keys for its SDK and ACP backends, and what they do there. */
const ROLE_BACKEND_WHAT: Record<string, string> = {
  backend_provider: "the role's ACP provider",
  backend_agent: "the role's ACP agent mode",
  backend_profile: "the role's Hermes profile",
};

const PROMPT_MODES: readonly unknown[] = ["arg", "stdin", "file"];
const GATE_KEYS = ["event", "requires", "blocked", "failed", "evidence"];
const EVIDENCE_KEYS = ["key", "type", "min", "max", "status"];

function unknownKeys(value: unknown, known: readonly string[], at: string): string[] {
  if (!isTable(value)) return [];
  return Object.keys(value)
    .filter((k) => !known.includes(k))
    .map((k) => `${at}.${k} is not implemented here and is ignored`);
}

/** One role's keys: other backend kinds run as commands, the rest named (never refused). */
function roleWarnings(role: unknown, i: number): string[] {
  if (!isTable(role)) return [];
  const at = `role[${i}]`;
  const who = typeof role.id === "string" ? ` (role ${JSON.stringify(role.id)})` : "";
  const out: string[] = [];
  for (const [key, value] of Object.entries(role)) {
    if (ROLE_KEYS.includes(key) && key !== "backend_prompt_mode") continue;
    if (key === "backend_kind") {
      if (value !== "command" && !isCliAgent(value))
        out.push(
          `${at}.backend_kind = ${JSON.stringify(value)}${who} is not implemented here; the role runs ${role.backend_command === undefined ? "backend.command" : "its backend_command"} as a command backend instead`,
        );
      continue;
    }
    if (key === "backend_prompt_mode" && !PROMPT_MODES.includes(value as string)) {
      out.push(
        `${at}.backend_prompt_mode = ${JSON.stringify(value)}${who} is not implemented here; the role uses backend.prompt_mode`,
      );
      delete role[key];
      continue;
    }
    const what = ROLE_BACKEND_WHAT[key];
    out.push(
      `${at}.${key}${who}${what ? ` (${what})` : ""} is not implemented here and is ignored`,
    );
  }
  return out;
}

/**
 * Makes a topology written for the public autoloop runnable here (mutates `raw`: an unknown
 * evidence type becomes `generic`, a role's prompt mode this harness has not is dropped, as
 * the reference reads them) and returns the warnings: top-level tables (in a folder's
 * topology.toml; a single-file preset's are the config's), role, gate and evidence keys this
 * harness does not read, each named.
 */
export function adaptReferenceTopology(
  raw: Record<string, unknown>,
  singleFile: boolean,
): string[] {
  const out: string[] = [];
  if (!singleFile)
    for (const [key, value] of Object.entries(raw))
      if (!TOPOLOGY_KEYS.has(key))
        out.push(
          `topology.toml: ${isTable(value) || Array.isArray(value) ? `[${key}]` : key} (${WHAT[key] ?? "a key of another harness"}) is not implemented here and is ignored`,
        );
  const roles = Array.isArray(raw.role) ? raw.role : [];
  for (const [i, role] of roles.entries()) out.push(...roleWarnings(role, i));
  const gates = Array.isArray(raw.gate) ? raw.gate : [];
  for (const [i, gate] of gates.entries()) {
    out.push(...unknownKeys(gate, GATE_KEYS, `gate[${i}]`));
    const evidence = isTable(gate) && Array.isArray(gate.evidence) ? gate.evidence : [];
    for (const [j, e] of evidence.entries()) {
      out.push(...unknownKeys(e, EVIDENCE_KEYS, `gate[${i}].evidence[${j}]`));
      // The reference checks a type it does not know for presence only; so does this harness.
      if (
        isTable(e) &&
        e.type !== undefined &&
        !(EVIDENCE_TYPES as readonly unknown[]).includes(e.type)
      ) {
        out.push(
          `gate[${i}].evidence[${j}].type = ${JSON.stringify(e.type)} is not one of ${EVIDENCE_TYPES.join(", ")}; the key is checked for presence only (generic)`,
        );
        e.type = "generic";
      }
    }
  }
  return out;
}
