// Run ids: sortable, unique enough for concurrent launches, and safe inside a path.

export const RUN_ID_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/;

export function isValidRunId(id: string): boolean {
  return RUN_ID_PATTERN.test(id) && !id.includes("..");
}

/** `run-20261121T204500-k3x9qa`: UTC start time plus 6 random base-36 characters. */
export function newRunId(now: Date = new Date()): string {
  const stamp = now.toISOString().replace(/[-:]/g, "").slice(0, 15);
  // Math.random, not node:crypto (whose load would slow a harness start): the ids need to
  // be unique, not secret, and Node seeds each process's generator from OpenSSL's.
  let rand = "";
  for (let i = 0; i < 6; i++) rand += Math.floor(Math.random() * 36).toString(36);
  return `run-${stamp}-${rand}`;
}
