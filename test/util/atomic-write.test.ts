// Atomic writes off the event loop: a long string goes out in parts, byte for byte the same.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { stringParts, writeFileAtomicAsync } from "../../src/util/atomic-write.js";
import { cleanupTempDirs, tempDir } from "../helpers/cli.js";

afterEach(cleanupTempDirs);

describe("writeFileAtomicAsync", () => {
  it("writes a long string in parts, never splitting a surrogate pair", async () => {
    const part = 256 * 1024;
    // An emoji (two UTF-16 units) straddles the first cut.
    const text = `${"a".repeat(part - 1)}😀${"b".repeat(part)}é😀${"c".repeat(1000)}`;
    const parts = stringParts(text);
    expect(parts.join("")).toBe(text);
    expect(parts.length).toBe(3);
    const lone = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
    for (const p of parts) expect(p).not.toMatch(lone);
    expect(parts[0]!.length).toBe(part - 1); // cut before the pair, not inside it
    const file = join(tempDir(), "state", "big.json");
    await writeFileAtomicAsync(file, text);
    expect(readFileSync(file, "utf8")).toBe(text);
    expect(stringParts("")).toEqual([""]);
  });
});
