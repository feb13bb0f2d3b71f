// What the loop writes to the shared journal for one run: the harness's own records and the
// operator's words (guidance, answers), both with the run's secrets redacted.
import { JournalWriter } from "../../journal/append.js";
import { type FieldValue, journalTimestamp } from "../../journal/codec.js";
import type { Redactor } from "../../util/secrets.js";
import { redactFields } from "../run-secrets.js";

export class RunJournal {
  private readonly writer: JournalWriter;

  constructor(
    journalFile: string,
    private readonly runId: string,
    private readonly secrets: Redactor,
  ) {
    this.writer = new JournalWriter(journalFile);
  }

  /** A harness record (`loop.start`, `iteration.finish`...). */
  readonly system = (
    topic: string,
    iteration: number | undefined,
    fields: Record<string, FieldValue>,
  ) =>
    this.writer.append({
      shape: "system",
      run: this.runId,
      iteration: iteration === undefined ? undefined : String(iteration),
      topic,
      ts: journalTimestamp(),
      v: 1,
      fields: redactFields(fields, this.secrets),
    });

  /** The operator's words in the journal: guidance (and answers), shown in the next prompt. */
  readonly operator = (
    topic: string,
    iteration: number | undefined,
    text: string,
    source: string,
  ) =>
    this.writer.append({
      shape: "agent",
      run: this.runId,
      iteration: iteration === undefined ? "" : String(iteration),
      topic,
      ts: journalTimestamp(),
      v: 1,
      payload: this.secrets.redact(text),
      source,
    });

  close(): void {
    this.writer.close();
  }
}
