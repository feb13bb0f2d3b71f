// One run's state as the journal shows it (launch metadata, progress, gate refusals, end),
// and the pure step that folds one record into it.
import { fieldNumber, fieldText, type JournalRecord } from "../../journal/codec.js";
import { chainStatusOf, type OutcomeClass, stopReasonClass } from "../../journal/stop-reasons.js";

/** The completion gate's refusals of one run. */
export interface GateState {
  /** The completion event refused by the latest `task.gate`. */
  blockedTopic: string;
  /** Ids from the latest refusal's `open_tasks`. */
  openTaskIds: string[];
  /** `completion_promise` when the latest refusal came from the promise path. */
  via?: string;
  /** Consecutive refusals without progress; 0 once the agent moved on. */
  refusals: number;
  /** ts of the first refusal of the current streak (set while `refusals` > 0). */
  streakSince?: string;
  /** Refusals since a task was last seen completed; agent chatter does not reset these. */
  episodeRefusals: number;
  /** ts of the first of `episodeRefusals`. */
  episodeSince: string;
  lastAt: string;
}

export type Terminal =
  | { topic: "loop.complete"; reason: string; at: string }
  | { topic: "loop.stop"; reason: string; class: OutcomeClass; at: string; detail?: string };

export interface RunState {
  run: string;
  journalPath: string;
  /** A `loop.start` was seen; false when the monitor joined the journal mid-run. */
  started: boolean;
  workDir?: string;
  preset?: string;
  objective?: string;
  trigger?: string;
  createdAt?: string;
  iteration?: string;
  /** ts of the newest record of the run (by journal order). */
  lastRecordAt: string;
  records: number;
  invalidEmits: number;
  gate?: GateState;
  terminal?: Terminal;
  /** A chain's run (`chain.start` seen): its steps are runs of their own. */
  chain?: boolean;
  /** `parent_run_id` of its loop.start, when it has one. */
  parentRun?: string;
  /** A step of a chain the monitor follows: the chain, not the step, reports its end. */
  chainStep?: boolean;
  /** Terminal records that records of the run came after (not its end after all). */
  voidedEnds?: number;
  /** The question the run waits on (`ask.pending` without its answer or timeout). */
  question?: { id: string; text: string; askedAt: string; timeoutAt?: string };
  /** How its latest question ended: answered (by whom, what), or timed out. */
  answer?: { id: string; at: string; how: "answered" | "timeout"; by?: string; text?: string };
  /** What it spent: iterations finished, the known cost and tokens of its `backend.usage`. */
  spend?: { iterations: number; costUsd: number; tokens: number; priced: number };
}

/** A question or answer kept in the run's state (and its alert) is cut to this many characters. */
const QUESTION_KEPT = 2000;

const spendOf = (state: RunState) =>
  state.spend ?? { iterations: 0, costUsd: 0, tokens: 0, priced: 0 };

export function newRunState(run: string, journalPath: string, ts: string): RunState {
  const lastRecordAt = Number.isFinite(timestampMs(ts)) ? ts : new Date().toISOString();
  return { run, journalPath, started: false, lastRecordAt, records: 0, invalidEmits: 0 };
}

/** `open_tasks` is ids joined by ","; blanks are dropped. */
export function splitTaskIds(text: string): string[] {
  return text
    .split(",")
    .map((id) => id.trim())
    .filter((id) => id !== "");
}

function setText(target: RunState, key: keyof RunState, record: JournalRecord, field: string) {
  const value = fieldText(record, field);
  if (value !== "") (target as unknown as Record<string, string>)[key] = value;
}

/**
 * A refusal extends the streak, unless an id of the previous refusal is no longer open:
 * then a task was completed (or removed) in between, which is progress, and both the
 * streak and the grace episode restart at this refusal.
 */
function refuse(prev: GateState | undefined, record: JournalRecord): GateState {
  const ids = splitTaskIds(fieldText(record, "open_tasks"));
  const ts = record.ts;
  const taskDone = prev?.openTaskIds.some((id) => !ids.includes(id)) === true;
  const gate: GateState =
    prev === undefined || taskDone
      ? { ...base(ts), refusals: 1, episodeRefusals: 1 }
      : {
          ...prev,
          refusals: prev.refusals + 1,
          streakSince: prev.streakSince ?? ts,
          episodeRefusals: prev.episodeRefusals + 1,
        };
  gate.blockedTopic = fieldText(record, "blocked_topic");
  gate.openTaskIds = ids;
  gate.lastAt = ts;
  const via = fieldText(record, "via");
  if (via === "") delete gate.via;
  else gate.via = via;
  return gate;
}

function base(ts: string): Omit<GateState, "refusals" | "episodeRefusals"> {
  return { blockedTopic: "", openTaskIds: [], streakSince: ts, episodeSince: ts, lastAt: ts };
}

/** A chain's end as a run's: completed, or stopped/failed with the step that ended it. */
function chainTerminalOf(record: JournalRecord): Terminal {
  const status = chainStatusOf(record);
  if (status === "completed")
    return { topic: "loop.complete", reason: "chain_completed", at: record.ts };
  const step = fieldText(record, "failed_step");
  const run = fieldText(record, "failed_run_id");
  const why = fieldText(record, "failed_reason");
  const t: Terminal = {
    topic: "loop.stop",
    reason: fieldText(record, "reason") || `chain_${status}`,
    class: (["failed", "stopped", "interrupted"].includes(status)
      ? status
      : "failed") as OutcomeClass,
    at: record.ts,
  };
  if (step !== "")
    t.detail = `step ${step}${run === "" ? "" : ` (run ${run})`} ended the chain${why === "" ? "" : `: ${why}`}`;
  return t;
}

function terminalOf(record: JournalRecord): Terminal {
  const reason = fieldText(record, "reason");
  if (record.topic === "loop.complete") return { topic: "loop.complete", reason, at: record.ts };
  const t: Terminal = { topic: "loop.stop", reason, class: stopReasonClass(reason), at: record.ts };
  const detail = fieldText(record, "detail") || fieldText(record, "output_tail");
  if (detail !== "") t.detail = detail;
  return t;
}

const isTerminalTopic = (topic: string) =>
  topic === "loop.complete" || topic === "loop.stop" || topic === "chain.complete";

let lastTs = "";
let lastMs = Number.NaN;

/** How far ahead of our clock a record may be stamped (another host's clock) and still count. */
const FUTURE_SKEW_MS = 5 * 60_000;

/**
 * `Date.parse(ts)`, remembering the last answer: records come in bursts with one timestamp
 * (an iteration's five records), and parsing each again was a visible share of a first pass.
 * NaN (undated) for a time past our clock and its skew: the run writes its journal, and a date
 * in the future would hold off its stall and crash alerts, and make its later records look
 * like replays.
 */
export function timestampMs(ts: string): number {
  if (ts !== lastTs) {
    lastTs = ts;
    lastMs = Date.parse(ts);
  }
  return lastMs <= Date.now() + FUTURE_SKEW_MS ? lastMs : Number.NaN;
}

/** Folds one record of a topic into the run's state (mutates it). */
type TopicStep = (state: RunState, record: JournalRecord) => void;

/** `loop.start`: the run's launch metadata. */
const loopStart: TopicStep = (state, record) => {
  state.started = true;
  setText(state, "workDir", record, "work_dir");
  setText(state, "preset", record, "preset");
  setText(state, "objective", record, "objective");
  setText(state, "trigger", record, "trigger");
  setText(state, "createdAt", record, "created_at");
  setText(state, "parentRun", record, "parent_run_id");
};

/** `chain.start`: a chain's run, named by its chain. */
const chainStart: TopicStep = (state, record) => {
  state.started = true;
  state.chain = true;
  state.preset = `chain ${fieldText(record, "name") || "(unnamed)"}`;
  setText(state, "objective", record, "objective");
  setText(state, "trigger", record, "trigger");
};

/** `chain.complete`: a chain's end, as a run's. */
const chainEnd: TopicStep = (state, record) => {
  state.terminal ??= chainTerminalOf(record);
};

/** `task.gate`: the completion gate refused (see `refuse`). */
const gateRefusal: TopicStep = (state, record) => {
  state.gate = refuse(state.gate, record);
};

/** `event.invalid`: an emit the harness rejected (not progress). */
const invalidEmit: TopicStep = (state) => {
  state.invalidEmits += 1;
};

/** `iteration.finish`: one more iteration spent. */
const iterationDone: TopicStep = (state) => {
  state.spend = { ...spendOf(state), iterations: spendOf(state).iterations + 1 };
};

/** `backend.usage`: adds one agent call's known cost and tokens. */
const usage: TopicStep = (state, record) => {
  const s = spendOf(state);
  const cost = fieldNumber(record, "cost_usd");
  state.spend = {
    ...s,
    costUsd: s.costUsd + (cost ?? 0),
    tokens: s.tokens + (fieldNumber(record, "total_tokens") ?? 0),
    priced: s.priced + (cost === undefined ? 0 : 1),
  };
};

/** `ask.pending`: the question the run now waits on. */
const askPending: TopicStep = (state, record) => {
  const timeoutAt = fieldText(record, "timeout_at");
  state.question = {
    id: fieldText(record, "question_id"),
    text: fieldText(record, "question").slice(0, QUESTION_KEPT),
    askedAt: record.ts,
    ...(timeoutAt !== "" && { timeoutAt }),
  };
};

/** `ask.answered` / `ask.timeout`: how the pending question ended (others are ignored). */
const askEnded: TopicStep = (state, record) => {
  const id = fieldText(record, "question_id");
  if (state.question?.id !== id) return;
  delete state.question;
  const by = fieldText(record, "answered_by");
  const text = fieldText(record, "answer").slice(0, QUESTION_KEPT);
  state.answer = {
    id,
    at: record.ts,
    how: record.topic === "ask.answered" ? "answered" : "timeout",
    ...(by !== "" && { by }),
    ...(text !== "" && { text }),
  };
};

/** `loop.complete` / `loop.stop`: a run has exactly one; keep the first if a writer repeats it. */
const loopEnd: TopicStep = (state, record) => {
  state.terminal ??= terminalOf(record);
};

/** The step of each harness topic the monitor reads; other topics only count and date. */
const TOPIC_STEPS: ReadonlyMap<string, TopicStep> = new Map([
  ["loop.start", loopStart],
  ["chain.start", chainStart],
  ["chain.complete", chainEnd],
  ["task.gate", gateRefusal],
  ["event.invalid", invalidEmit],
  ["iteration.finish", iterationDone],
  ["backend.usage", usage],
  ["ask.pending", askPending],
  ["ask.answered", askEnded],
  ["ask.timeout", askEnded],
  ["loop.complete", loopEnd],
  ["loop.stop", loopEnd],
]);

/**
 * Folds one record of `state.run` into its state (mutates and returns it).
 *
 * End rule: a terminal record counts until another record of the run follows it.
 *
 * Progress rule: any record an agent emitted (`source: "agent"`) was accepted, so the loop
 * moved on; it ends the refusal streak (the refused completion itself is never journaled).
 * Tasks are not in the journal; a task completed between two refusals shows as an id
 * missing from the later refusal (see `refuse`). `event.invalid` is not progress.
 */
export function applyRecord(state: RunState, record: JournalRecord): RunState {
  state.records += 1;
  // The harness's terminal record is its last: a record after it means that one was not the
  // end (a line an agent appended, or a run resumed), so the run is open again.
  if (state.terminal !== undefined && !isTerminalTopic(record.topic)) {
    state.voidedEnds = (state.voidedEnds ?? 0) + 1;
    delete state.terminal;
  }
  if (Number.isFinite(timestampMs(record.ts))) state.lastRecordAt = record.ts;
  if (record.iteration !== undefined && record.iteration !== "") state.iteration = record.iteration;
  if (record.shape === "agent") {
    if (record.source === "agent" && state.gate !== undefined) {
      state.gate.refusals = 0;
      delete state.gate.streakSince;
    }
    return state;
  }
  TOPIC_STEPS.get(record.topic)?.(state, record);
  return state;
}
