// The slot claim files on the state dir, read back into their keys, for the look for orphaned
// claims (claim-retake.ts). Only a plain slot's key (`<schedule>@<slot ISO>`) is read back: an
// attempt's, a repeat's or a delivery's claim is retaken by its own next claimer instead.
import { readdirSync } from "node:fs";
import { join } from "node:path";
import { CLAIMS_DIR } from "./claim-files.js";

const SLOT_ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

export interface SlotClaimFile {
  key: string;
  schedule: string;
  slot: Date;
  path: string;
}

function entries(dir: string): string[] {
  try {
    return readdirSync(dir);
  } catch {
    return []; // no claim yet, or removed by retention meanwhile
  }
}

function decoded(name: string): string | undefined {
  try {
    return decodeURIComponent(name);
  } catch {
    return undefined; // not a name this program wrote
  }
}

/** Every plain slot's claim file under `stateDir` (temporary and retake files left out). */
export function slotClaimFiles(stateDir: string): SlotClaimFile[] {
  const root = join(stateDir, CLAIMS_DIR);
  const out: SlotClaimFile[] = [];
  for (const folder of entries(root)) {
    const schedule = decoded(folder);
    if (schedule === undefined) continue;
    for (const name of entries(join(root, folder))) {
      const iso = decoded(name);
      if (iso === undefined || !SLOT_ISO.test(iso)) continue;
      const slot = new Date(iso);
      if (Number.isNaN(slot.getTime())) continue;
      out.push({ key: `${schedule}@${iso}`, schedule, slot, path: join(root, folder, name) });
    }
  }
  return out;
}
