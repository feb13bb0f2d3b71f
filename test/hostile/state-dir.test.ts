// A state dir someone else prepared: 0777 with a ledger file linked outside. The daemon takes
// the permissions away (and says so), and refuses to start on a link it did not make.
import { chmodSync, mkdirSync, readFileSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { UserError } from "../../src/util/errors.js";
import { checkStateDir } from "../../src/util/private-files.js";
import { cleanupTempDirs, tempDir } from "../helpers/cli.js";

afterEach(cleanupTempDirs);

describe("the state dir at start", () => {
  it("loses group and other permissions, on itself and its files, and the change is listed", () => {
    const state = join(tempDir("autoloop-state-"), "state");
    mkdirSync(join(state, "runs"), { recursive: true });
    writeFileSync(join(state, "runs/index.jsonl"), "");
    writeFileSync(join(state, "slots.jsonl"), "");
    for (const p of [
      state,
      join(state, "runs"),
      join(state, "runs/index.jsonl"),
      join(state, "slots.jsonl"),
    ])
      chmodSync(p, 0o777);
    const { tightened } = checkStateDir(state);
    expect(tightened).toHaveLength(4);
    expect(tightened[0]).toBe(`${state} (was 0777)`);
    expect(statSync(state).mode & 0o777).toBe(0o700);
    expect(statSync(join(state, "slots.jsonl")).mode & 0o777).toBe(0o700);
    expect(checkStateDir(state).tightened).toEqual([]);
  });

  it("refuses a link to a file elsewhere, naming it, and writes nothing through it", () => {
    const state = join(tempDir("autoloop-state-"), "state");
    mkdirSync(state, { mode: 0o700 });
    const outside = join(tempDir("autoloop-outside-"), "precious");
    writeFileSync(outside, "keep\n");
    symlinkSync(outside, join(state, "slots.jsonl"));
    expect(() => checkStateDir(state)).toThrow(UserError);
    expect(() => checkStateDir(state)).toThrow(
      `${join(state, "slots.jsonl")} is a symbolic link inside the state dir`,
    );
    expect(readFileSync(outside, "utf8")).toBe("keep\n");
  });
});
