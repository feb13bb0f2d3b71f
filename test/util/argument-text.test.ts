// Text that travels as one argument: cut to bytes at a whole character, the pull request's
// description included, so a run's objective never reaches the kernel's 128 KiB.
import { describe, expect, it } from "vitest";
import { withPullText } from "../../src/scheduler/launch/review-checkout.js";
import { ARGUMENT_BYTES, cutToBytes } from "../../src/util/argument-text.js";

describe("cutToBytes", () => {
  it("keeps short text, and cuts long text at a whole character with the note", () => {
    expect(cutToBytes("字字", 6, "(cut)")).toBe("字字");
    const cut = cutToBytes("字".repeat(10), 14, "(cut)");
    expect(cut).toBe("字字\n(cut)");
    expect(Buffer.byteLength(cut)).toBeLessThanOrEqual(14);
  });

  it("fits a pull request's description beside the longest objective a schedule may have", () => {
    const pull = {
      ...{ number: 7, url: "https://github.example/o/r/pull/7", headSha: "a".repeat(40) },
      ...{ fromFork: false, headRepository: "o/r", title: "t", body: "字".repeat(16_000) },
    };
    const text = withPullText("o".repeat(100 * 1024), pull, "n0nce");
    expect(Buffer.byteLength(text)).toBeLessThanOrEqual(ARGUMENT_BYTES);
    expect(text.endsWith("(cut)\n-----END PULL REQUEST TEXT n0nce-----")).toBe(true);
  });
});
