// `validate`'s word on a schedule's `source`: a tracker token this environment cannot read is
// said, not refused (the daemon's environment may hold it where `validate` runs without it).
import type { FieldProblem } from "../../util/errors.js";
import { sourceTokenField, unusableSourceTokens } from "../config/source.js";
import type { Schedule } from "./schedule-file.js";

export function checkSource(
  s: Schedule,
  field: (s: Schedule, key: string) => string,
  warnings: FieldProblem[],
): void {
  const source = s.source;
  if (source === undefined) return;
  const [unusable] = unusableSourceTokens([s], process.env);
  if (unusable === undefined) return;
  warnings.push({
    file: s.file,
    field: field(s, sourceTokenField(source)),
    found: JSON.stringify(source.token.kind === "env" ? source.token.name : source.token.path),
    expected: `a tracker token the daemon can read (${unusable.problem}); until then the schedule's slots are skipped`,
  });
}
