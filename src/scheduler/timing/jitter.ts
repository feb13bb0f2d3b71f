// Deterministic jitter: a slot's fire instant is its slot time plus an offset hashed from the
// schedule name and the slot, so every restart computes the same instant.
import { createHash } from "node:crypto";

/** Offset in [0, jitterMs) for this schedule and slot; 0 when jitter is off. */
export function jitterOffset(name: string, slot: Date, jitterMs: number): number {
  if (jitterMs <= 0) return 0;
  const digest = createHash("sha256").update(`${name}@${slot.toISOString()}`).digest();
  // 48 bits keep the modulo bias negligible for any jitter a person would configure.
  return digest.readUIntBE(0, 6) % Math.floor(jitterMs);
}

/** When the slot actually fires: the slot time plus its jitter offset. */
export function fireTimeOf(spec: { name: string; jitterMs: number }, slot: Date): Date {
  return new Date(slot.getTime() + jitterOffset(spec.name, slot, spec.jitterMs));
}
