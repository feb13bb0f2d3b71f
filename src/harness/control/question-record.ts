// The question a run's harness asked, in the run's private folder (`question.json`): written by
// the harness when it asks and when the wait ends. The operator's tools answer only a question
// recorded here: an `ask.pending` line in the journal may be the agent's own.
import * as z from "zod/mini";
import { writeFileAtomic } from "../../util/atomic-write.js";
import { readSmallRegularFile } from "../../util/untrusted-file.js";
import type { PrivateRunPaths } from "./private-run.js";

const questionRecordSchema = z.object({
  questionId: z.string(),
  question: z.string(),
  iteration: z.string(),
  askedAt: z.string(),
  timeoutAt: z.string(),
  state: z.enum(["waiting", "answered", "timeout", "aborted"]),
  /** Who answered (the request's `by`) and through which request, once answered. */
  answeredBy: z.optional(z.string()),
  requestId: z.optional(z.string()),
  endedAt: z.optional(z.string()),
});

export type QuestionRecord = z.infer<typeof questionRecordSchema>;

/** Records the question; false when the private folder cannot be written (nobody can answer). */
export function writeQuestionRecord(paths: PrivateRunPaths, record: QuestionRecord): boolean {
  try {
    writeFileAtomic(paths.question, `${JSON.stringify(record)}\n`);
    return true;
  } catch {
    return false;
  }
}

export function readQuestionRecord(paths: PrivateRunPaths): QuestionRecord | undefined {
  const text = readSmallRegularFile(paths.question);
  if (text === undefined) return undefined;
  try {
    const parsed = questionRecordSchema.safeParse(JSON.parse(text));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}
