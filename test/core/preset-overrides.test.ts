// `--set key=value`: TOML values where they belong, text where the key holds text.
import { describe, expect, it } from "vitest";
import { applyOverrides } from "../../src/harness/preset/preset.js";

describe("applyOverrides", () => {
  it("keeps a text key text (`backend.command=true` is the program true)", () => {
    const raw = { backend: { command: "claude", args: [] }, event_loop: { max_iterations: 3 } };
    applyOverrides(raw, [
      "backend.command=true",
      'backend.args=["-x"]',
      "event_loop.max_iterations=5",
      "event_loop.stall_iterations=0",
    ]);
    expect(raw).toEqual({
      backend: { command: "true", args: ["-x"] },
      event_loop: { max_iterations: 5, stall_iterations: 0 },
    });
  });
});
