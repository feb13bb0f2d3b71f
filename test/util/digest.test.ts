// hexDigest: the same digests as createHash, for text (UTF-8) and bytes.
import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { hexDigest } from "../../src/util/digest.js";

describe("hexDigest", () => {
  it("equals createHash's hex digest for strings and bytes", () => {
    for (const algorithm of ["sha1", "sha256"] as const) {
      for (const text of ["", "gate_stuck:schedule/nightly", "é ✓ 🙂", "x".repeat(5000)]) {
        const expected = createHash(algorithm).update(text, "utf8").digest("hex");
        expect(hexDigest(algorithm, text)).toBe(expected);
        expect(hexDigest(algorithm, Buffer.from(text, "utf8"))).toBe(expected);
      }
    }
  });
});
