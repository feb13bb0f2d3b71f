// An issue body's task list (GitHub and GitLab Markdown checkboxes, `- [ ] text`, `- [x] text`)
// and the one edit task sync makes to it: a box's `[ ]` becomes `[x]`, every other byte kept.
// Pure: text in, boxes or a new body out.
import { hexDigest } from "../util/digest.js";

/** One checkbox of a body, where it is and what it says. */
export interface Checkbox {
  /** Its place among the body's boxes (0 is the first). */
  ordinal: number;
  /** Its line (0 is the first). */
  line: number;
  /** Where the character between its brackets sits in the body. */
  mark: number;
  checked: boolean;
  text: string;
}

/** A box as task sync remembers it: its place and what its text was, as a digest. */
export interface BoxRef {
  ordinal: number;
  digest: string;
}

// A list item (bullet `-`, `*`, `+` or `1.`/`1)`), maybe in a quote, whose text opens with a box.
const BOX = /^([ \t]*(?:>[ \t]*)*(?:[-*+]|\d{1,9}[.)])[ \t]+\[)([ xX])\][ \t]+(\S.*)$/;
// A fence opens and closes a code block; its boxes are examples, not tasks.
const FENCE = /^[ \t]*(?:>[ \t]*)*(`{3,}|~{3,})(.*)$/;

/** The digest a box's text is known by (so the daemon's record holds no issue text to match). */
export function boxDigest(text: string): string {
  return hexDigest("sha256", text).slice(0, 32);
}

/** The body's checkboxes with text, in order; those inside fenced code blocks left out. */
export function checkboxes(body: string): Checkbox[] {
  const boxes: Checkbox[] = [];
  let fence: string | undefined;
  let start = 0;
  const lines = body.split("\n");
  lines.forEach((raw, line) => {
    const at = start;
    start += raw.length + 1;
    const text = raw.endsWith("\r") ? raw.slice(0, -1) : raw;
    const f = FENCE.exec(text);
    if (f !== null) {
      const marker = f[1]!;
      if (fence === undefined) fence = marker;
      // A closing fence: the opening's character, at least as long, nothing after it.
      else if (marker[0] === fence[0] && marker.length >= fence.length && f[2]!.trim() === "")
        fence = undefined;
      return;
    }
    if (fence !== undefined) return;
    const m = BOX.exec(text);
    if (m === null) return;
    boxes.push({
      ordinal: boxes.length,
      line,
      mark: at + m[1]!.length,
      checked: m[2] !== " ",
      text: m[3]!.trim(),
    });
  });
  return boxes;
}

/** The current box a remembered one is, if the team left it as it was: else undefined. */
function findBox(
  boxes: readonly Checkbox[],
  ref: BoxRef,
  taken: Set<number>,
): Checkbox | undefined {
  const same = (b: Checkbox) => boxDigest(b.text) === ref.digest && !taken.has(b.ordinal);
  const there = boxes[ref.ordinal];
  if (there !== undefined && same(there)) return there;
  // Moved (a box added or removed above it): only an unambiguous match is it.
  const moved = boxes.filter(same);
  return moved.length === 1 ? moved[0] : undefined;
}

export interface TickResult {
  body: string;
  /** Boxes ticked now. */
  ticked: BoxRef[];
  /** Boxes already ticked (by a person, or by an earlier attempt). */
  already: BoxRef[];
  /** Boxes edited or removed since: left alone. */
  gone: BoxRef[];
}

/** `body` with the boxes of `refs` ticked, each found as it was remembered; nothing else changed. */
export function tickBoxes(body: string, refs: readonly BoxRef[]): TickResult {
  const boxes = checkboxes(body);
  const taken = new Set<number>();
  const result: TickResult = { body, ticked: [], already: [], gone: [] };
  const marks: number[] = [];
  for (const ref of refs) {
    const box = findBox(boxes, ref, taken);
    if (box === undefined) {
      result.gone.push(ref);
      continue;
    }
    taken.add(box.ordinal);
    if (box.checked) result.already.push(ref);
    else {
      result.ticked.push(ref);
      marks.push(box.mark);
    }
  }
  let out = body;
  for (const mark of marks) out = `${out.slice(0, mark)}x${out.slice(mark + 1)}`;
  result.body = out;
  return result;
}
