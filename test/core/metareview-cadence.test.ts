// The metareview's cadence (the public autoloop's rule) and verdict parsing, as pure functions.
import { describe, expect, it } from "vitest";
import { parseVerdict, reviewBefore, reviewEvery } from "../../src/harness/loop/metareview.js";

describe("reviewEvery", () => {
  it.each([
    // configured, role count, every
    [0, 3, 3],
    [0, 0, 1],
    [-2, 4, 4],
    [5, 3, 5],
    [1, 0, 1],
  ])("every_iterations %i with %i roles → %i", (configured, roles, every) => {
    expect(reviewEvery(configured, roles)).toBe(every);
  });
});

describe("reviewBefore", () => {
  const reviewedBefore = (every: number, adversarialFirst: boolean, max: number, enabled = true) =>
    Array.from({ length: max + 2 }, (_, i) => i).filter((n) =>
      reviewBefore(n, { enabled, every, adversarialFirst }, max),
    );
  it.each([
    // every, adversarial_first, max_iterations, reviewed before
    [3, true, 10, [2, 4, 7, 10]],
    [3, false, 10, [4, 7, 10]],
    [1, true, 4, [2, 3, 4]],
    [1, false, 4, [2, 3, 4]],
    [2, false, 6, [3, 5]],
    [2, true, 6, [2, 3, 5]],
    [5, true, 1, []],
    [4, false, 4, []],
  ])("every %i, adversarial_first %s, max %i → %j", (every, first, max, expected) => {
    expect(reviewedBefore(every, first, max)).toEqual(expected);
  });
  it("never when disabled, never before iteration 1, never past the last iteration", () => {
    expect(reviewedBefore(1, true, 10, false)).toEqual([]);
    expect(reviewBefore(1, { enabled: true, every: 1, adversarialFirst: true }, 10)).toBe(false);
    expect(reviewBefore(0, { enabled: true, every: 1, adversarialFirst: true }, 10)).toBe(false);
    expect(reviewBefore(11, { enabled: true, every: 1, adversarialFirst: true }, 10)).toBe(false);
  });
});

describe("parseVerdict", () => {
  const block = (json: string) => `Done tidying.\n\`\`\`json\n${json}\n\`\`\`\n`;
  it.each([
    ["", 0.5, "UNKNOWN", "Empty review output; failing closed to UNKNOWN"],
    [
      "no block here",
      0.5,
      "UNKNOWN",
      "No structured verdict block found; failing closed to UNKNOWN",
    ],
    [block("{ not json }"), 0.5, "UNKNOWN", "Malformed verdict JSON; failing closed to UNKNOWN"],
    [
      block('{"verdict": "maybe", "confidence": 0.9}'),
      0.5,
      "UNKNOWN",
      'Unrecognized verdict "MAYBE"; failing closed to UNKNOWN',
    ],
    [
      block('{"confidence": 0.9}'),
      0.5,
      "UNKNOWN",
      'Unrecognized verdict "(missing)"; failing closed to UNKNOWN',
    ],
    [
      block('{"verdict": "EXIT", "confidence": 0.3, "reasoning": "r"}'),
      0.5,
      "UNKNOWN",
      "Verdict EXIT confidence 0.3 below min_confidence 0.5; downgraded to UNKNOWN",
    ],
    [block('{"verdict": "exit", "confidence": 0.3, "reasoning": "r"}'), 0, "EXIT", "r"],
    [
      block('{"verdict": "continue", "confidence": 0.9, "reasoning": "fine"}'),
      0.5,
      "CONTINUE",
      "fine",
    ],
  ])("%j (min %d) → %s", (output, min, verdict, reasoning) => {
    const v = parseVerdict(output, min);
    expect(v.verdict).toBe(verdict);
    expect(v.reasoning).toBe(reasoning);
  });
  it("keeps the confidence of a downgraded verdict and the redirect prompt", () => {
    expect(parseVerdict(block('{"verdict": "EXIT", "confidence": "0.25"}'), 0.5).confidence).toBe(
      0.25,
    );
    const v = parseVerdict(
      block('{"verdict": "REDIRECT", "confidence": 0.8, "redirect_prompt": "do X"}'),
      0.5,
    );
    expect([v.verdict, v.redirectPrompt]).toEqual(["REDIRECT", "do X"]);
  });
});
