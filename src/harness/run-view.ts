// An incremental, run-scoped view of the shared journal: it reads only the bytes appended
// since the last refresh and keeps what the loop and the prompt need, so the harness's
// cost per iteration does not grow with the journal's length.
import { decodeRecord, fieldText, type JournalRecord } from "../journal/codec.js";
import { LineCursor } from "../journal/reader.js";
import { checkGate, type Gate, gateFor, gateOutcomeTopics } from "./preset/evidence.js";
import { EXPLORE, isJoinedTopic, isParallelTrigger } from "./preset/parallel.js";
import { eventAllowed } from "./preset/topology.js";

export interface EmittedEvent {
  topic: string;
  payload: string;
  iteration: string;
}

export interface InvalidEmit {
  emitted: string;
  recentEvent: string;
  suggestedRoles: string;
  allowedEvents: string;
}

/** An emit an evidence gate refused: the event journaled instead, and what was missing. */
export interface EvidenceRefusal {
  topic: string;
  gatedEvent: string;
  missing: string;
  thresholdFailure: string;
  iteration: string;
}

/** What an iteration was told it may emit (its prompt's routing). */
export interface IterationRouting {
  recentEvent: string;
  roles: readonly string[];
  allowed: readonly string[];
}

/** An agent record the routing did not allow (written around the event tool): it never routed. */
export interface RefusedRoute {
  record: JournalRecord & { shape: "agent" };
  routing: IterationRouting;
}

export interface GateRefusal {
  blockedTopic: string;
  openTasks: string;
  via: string;
  iteration: string;
}

/**
 * Topics written by the harness (and the operator's guidance); they never route and agents may
 * not emit them.
 */
export function isSystemTopic(topic: string): boolean {
  return (
    /^(loop|iteration|backend|hook)\./.test(topic) ||
    HARNESS_TOPICS.has(topic) ||
    topic === "task.gate" ||
    topic === "event.invalid"
  );
}

/** The human-in-the-loop records: the harness's and the operator's, never an agent's. */
const HARNESS_TOPICS: ReadonlySet<string> = new Set([
  "ask.pending",
  "ask.answered",
  "ask.timeout",
  "operator.guidance",
  "operator.guidance.consumed",
  "operator.interrupt",
]);

/** An agent's request for a chain after its run (docs/dynamic-chains.md). */
export const SPAWN_TOPIC = "chain.spawn";

export class RunView {
  private readonly cursor: LineCursor;
  /** The routing event: the latest valid agent emit, else `loop.start`. */
  recentEvent = "loop.start";
  /** The latest rejected emit since the last valid one (the backpressure note). */
  backpressure: InvalidEmit | undefined;
  invalidCount = 0;
  lastRejected = "";
  lastGate: GateRefusal | undefined;
  gateCount = 0;
  lastEvidence: EvidenceRefusal | undefined;
  private readonly gateOutcomes: ReadonlySet<string>;
  readonly seenTopics = new Set<string>();
  /** Every routing event in order, so a refused one can give its route back. */
  private readonly routes: string[] = [];
  readonly emitted: EmittedEvent[] = [];
  /** The operator's guidance not yet shown to an agent (after the last `.consumed`). */
  guidance: string[] = [];
  skippedLines = 0;
  /** The waves this harness joined (their ids): only their joined records route. */
  private readonly joins = new Set<string>();
  /** The latest joined record that routed: its payload (the branches' results) is the next prompt's. */
  lastJoin: EmittedEvent | undefined;
  /** The routing agent records are checked against (none before the first prompt: history routes). */
  private routing: IterationRouting | undefined;
  /** Disallowed agent records not yet journaled as `event.invalid` (the route stage does). */
  refusedRoutes: RefusedRoute[] = [];

  constructor(
    journalFile: string,
    readonly runId: string,
    startOffset: number,
    /** The event an agent asks a human with: it is news for the harness, never a route. */
    private readonly askEvent = "human.ask",
    /** The preset's evidence gates: their refusals route, and an event without its evidence does not. */
    private readonly gates: readonly Gate[] = [],
  ) {
    this.cursor = new LineCursor(journalFile, startOffset);
    this.gateOutcomes = gateOutcomeTopics(gates);
  }

  /** Reads new journal lines; returns this run's new records. */
  refresh(): JournalRecord[] {
    const mine: JournalRecord[] = [];
    for (const line of this.cursor.readNew()) {
      if (line.trim() === "") continue;
      const record = decodeRecord(line);
      if (record === undefined) {
        this.skippedLines++;
        continue;
      }
      if (record.run !== this.runId) continue;
      mine.push(record);
      this.apply(record);
    }
    return mine;
  }

  private apply(record: JournalRecord): void {
    if (record.topic === "event.invalid") {
      this.invalidCount++;
      this.lastRejected = fieldText(record, "emitted");
      this.backpressure = {
        emitted: this.lastRejected,
        recentEvent: fieldText(record, "recent_event"),
        suggestedRoles: fieldText(record, "suggested_roles"),
        allowedEvents: fieldText(record, "allowed_events"),
      };
      // The harness's own refusal of an event that had routed (its pre_emit hooks).
      if (record.shape === "system" && fieldText(record, "via") === "pre_emit")
        this.unroute(this.lastRejected);
      return;
    }
    if (record.topic === "task.gate") {
      this.gateCount++;
      this.lastGate = {
        blockedTopic: fieldText(record, "blocked_topic"),
        openTasks: fieldText(record, "open_tasks"),
        via: fieldText(record, "via"),
        iteration: record.iteration ?? "",
      };
      return;
    }
    if (record.topic === "operator.guidance" && record.shape === "agent") {
      if (record.payload.trim() !== "") this.guidance.push(record.payload);
      return;
    }
    if (record.topic === "operator.guidance.consumed") {
      // Only what that prompt showed: guidance written meanwhile waits for the next one.
      const shown =
        record.shape === "agent" ? /Consumed (\d+)/.exec(record.payload)?.[1] : undefined;
      this.guidance = shown === undefined ? [] : this.guidance.slice(Number(shown));
      return;
    }
    if (record.shape === "system" && this.gateOutcomes.has(record.topic)) {
      if (fieldText(record, "gated_event") === "") return;
      this.lastEvidence = {
        topic: record.topic,
        gatedEvent: fieldText(record, "gated_event"),
        missing: fieldText(record, "missing_evidence"),
        thresholdFailure: fieldText(record, "threshold_failure"),
        iteration: record.iteration ?? "",
      };
      this.route(record.topic);
      return;
    }
    if (record.shape !== "agent" || isSystemTopic(record.topic)) return;
    if (this.askEvent !== "" && record.topic === this.askEvent) return;
    // A spawn request is for the harness once the run ends; it never routes (as the public's).
    if (record.topic === SPAWN_TOPIC) return;
    if (isParallelTrigger(record.topic) || isJoinedTopic(record.topic)) {
      this.wave(record);
      return;
    }
    // Not past its gate (written around the event tool): no route; the route stage journals why.
    const gate = gateFor(this.gates, record.topic);
    if (gate !== undefined && checkGate(gate, record.topic, record.payload).kind === "refused")
      return;
    // Not allowed now (written around the event tool): no route; the route stage journals why.
    if (this.routing !== undefined && !eventAllowed(this.routing.allowed, record.topic)) {
      this.refusedRoutes.push({ record, routing: this.routing });
      return;
    }
    this.route(record.topic);
    this.emitted.push({
      topic: record.topic,
      payload: record.payload,
      iteration: record.iteration,
    });
  }

  /** The iteration's prompt told the agent this routing: its later records are held to it. */
  expect(routing: IterationRouting): void {
    this.routing = routing;
  }

  /** The harness is about to journal the join of wave `waveId`: its record may route. */
  acceptJoin(waveId: string): void {
    this.joins.add(waveId);
  }

  /**
   * A trigger routes nowhere (the wave stage runs it); a joined record routes only when this
   * harness wrote it (the wave id its first payload line names), as its dispatch event's
   * joined topic, or, for `explore.parallel`, leaves the routing where the wave found it.
   */
  private wave(record: JournalRecord & { shape: "agent" }): void {
    const entry = { topic: record.topic, payload: record.payload, iteration: record.iteration };
    if (isParallelTrigger(record.topic)) {
      this.emitted.push(entry);
      return;
    }
    if (record.source !== "harness" || !this.joins.has(record.payload.split("\n")[0]!)) return;
    this.lastJoin = entry;
    if (record.topic === `${EXPLORE}.joined`) this.seenTopics.add(record.topic);
    else this.route(record.topic);
  }

  /** `topic` is now the routing event. */
  private route(topic: string): void {
    this.recentEvent = topic;
    this.backpressure = undefined;
    this.seenTopics.add(topic);
    this.routes.push(topic);
  }

  /** `topic`'s latest emit counts for nothing: the route goes back to what was before it. */
  private unroute(topic: string): void {
    const emitted = this.emitted.findLastIndex((e) => e.topic === topic);
    if (emitted >= 0) this.emitted.splice(emitted, 1);
    const at = this.routes.lastIndexOf(topic);
    if (at < 0) return;
    this.routes.splice(at, 1);
    this.recentEvent = this.routes.at(-1) ?? "loop.start";
    if (!this.routes.includes(topic)) this.seenTopics.delete(topic);
  }
}
