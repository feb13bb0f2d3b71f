// Hex digests in one call. crypto.hash (Node >= 20.12) skips the Hash object that createHash
// builds: less work per call, the more so in a process that idles between calls
// (the monitor hashes a journal's last line on every poll).
import * as crypto from "node:crypto";

const oneShot: typeof crypto.hash | undefined =
  typeof crypto.hash === "function" ? crypto.hash : undefined;

/** The hex digest of `data` (UTF-8 when a string). */
export function hexDigest(algorithm: "sha1" | "sha256", data: string | Uint8Array): string {
  return oneShot !== undefined
    ? oneShot(algorithm, data, "hex")
    : crypto.createHash(algorithm).update(data).digest("hex");
}
