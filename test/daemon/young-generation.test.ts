// The young generation held at 2 x 8 MiB: in a fresh node process (V8's own heap, no mocks),
// objects that survive scavenges grow it to 2 x 16 MiB unless it is held.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { buildSync } from "esbuild";
import { execa } from "execa";
import { afterAll, describe, expect, it } from "vitest";
import { cleanupTempDirs, ROOT, tempDir } from "../helpers/cli.js";

afterAll(cleanupTempDirs);

// One object of five kept, as a load keeps its schedules among its parsing garbage.
const CHILD = `
import { holdYoungGeneration, youngGenerationSize, YOUNG_GENERATION_HELD_AT } from "./young-generation.mjs";
const kept = [];
let junk;
const step = () => {
  for (let i = 0; i < 1000; i++) {
    const a = new Array(16).fill(i);
    if (i % 5 === 0) kept.push(a);
    else junk = a;
  }
};
for (let n = 0; youngGenerationSize() < YOUNG_GENERATION_HELD_AT && n < 20000; n++) step();
const before = youngGenerationSize();
const held = process.argv[2] === "hold" && holdYoungGeneration();
let most = before;
for (let i = 0; i < 2000; i++) {
  step();
  most = Math.max(most, youngGenerationSize());
}
process.stdout.write(JSON.stringify({ before, held, most, again: held && holdYoungGeneration() }));
`;

describe("holdYoungGeneration", () => {
  it("keeps the young generation at 2 x 8 MiB while a load's survivors would double it", async () => {
    const dir = tempDir();
    buildSync({
      entryPoints: [join(ROOT, "src/daemon/young-generation.ts")],
      bundle: true,
      platform: "node",
      format: "esm",
      outfile: join(dir, "young-generation.mjs"),
      logLevel: "warning",
    });
    writeFileSync(join(dir, "child.mjs"), CHILD);
    const run = async (mode: string) =>
      JSON.parse((await execa(process.execPath, ["child.mjs", mode], { cwd: dir })).stdout);
    const [held, free] = await Promise.all([run("hold"), run("free")]);
    const MiB = 1024 * 1024;
    expect(free).toMatchObject({ before: 16 * MiB, held: false, most: 32 * MiB });
    expect(held).toEqual({ before: 16 * MiB, held: true, most: 16 * MiB, again: true });
  });
});
