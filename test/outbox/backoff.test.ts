import { describe, expect, it } from "vitest";
import { MAX_RETRY_AFTER_MS, parseRetryAfter } from "../../src/monitor/channels/retry-after.js";
import { backoffDelay } from "../../src/monitor/outbox/backoff.js";

describe("backoffDelay", () => {
  const policy = { baseMs: 5_000, capMs: 15 * 60_000 };

  it("draws uniformly below an exponentially growing ceiling", () => {
    expect(backoffDelay(1, () => 0.999999, policy)).toBe(4_999);
    expect(backoffDelay(2, () => 0.5, policy)).toBe(5_000);
    expect(backoffDelay(4, () => 0.5, policy)).toBe(20_000);
  });

  it("never exceeds the cap and never drops below the floor", () => {
    expect(backoffDelay(30, () => 0.999999, policy)).toBeLessThan(15 * 60_000);
    expect(backoffDelay(30, () => 0.999999, policy)).toBeGreaterThan(14 * 60_000);
    expect(backoffDelay(1, () => 0, policy)).toBe(500);
  });
});

describe("parseRetryAfter", () => {
  const now = Date.parse("2026-11-21T12:00:00Z");

  it("reads delta seconds and HTTP dates", () => {
    expect(parseRetryAfter("120", now)).toBe(120_000);
    expect(parseRetryAfter("Sat, 21 Nov 2026 12:01:30 GMT", now)).toBe(90_000);
  });

  it("clamps past dates to 0 and long waits to the maximum, ignores garbage", () => {
    expect(parseRetryAfter("Sat, 21 Nov 2026 11:00:00 GMT", now)).toBe(0);
    expect(parseRetryAfter("999999", now)).toBe(MAX_RETRY_AFTER_MS);
    expect(parseRetryAfter("soon", now)).toBeUndefined();
    expect(parseRetryAfter(null, now)).toBeUndefined();
  });
});
