// A delivering schedule's fetch before a run, from a private remote (git's smart-HTTP server that
// takes only the token): with the pull request's token, from the daemon's own repository, and
// the token nowhere in the project's files.
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { fetchedSpec } from "../../src/scheduler/launch/fetch.js";
import type { PresetLaunch } from "../../src/scheduler/launch/spec.js";
import { cleanupTempDirs } from "../helpers/cli.js";
import { deliveryProject } from "../helpers/delivery-world.js";
import { git } from "../helpers/git.js";

const TOKEN = "ghp_fetchtoken0123456789";
const closers: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const c of closers.splice(0).reverse()) await c();
});
afterAll(cleanupTempDirs);

/** Every file under `dir`, its text. */
function allText(dir: string): string {
  let text = "";
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    text += statSync(path).isDirectory() ? allText(path) : readFileSync(path, "latin1");
  }
  return text;
}

describe("the fetch before a delivering run", () => {
  it("carries the pull request's token to its remote, and leaves it in no file of the project", async () => {
    const p = await deliveryProject("octo/app", TOKEN);
    closers.push(() => p.gitHttp.close());
    const main = git(p.bare, "rev-parse", "main").trim();
    const spec: PresetLaunch = {
      ...{ kind: "preset", runId: "nightly-1", schedule: "nightly", slot: new Date() },
      ...{ cwd: p.project, outputPath: join(p.root, "out.log"), harness: ["autoloop"] },
      ...{ preset: "simplify", objective: "o", fetch: { remote: "origin", base: "main" } },
      gitDir: join(p.root, "state", "git"),
    };
    const without = await fetchedSpec(spec, process.env);
    expect(without).toMatchObject({ kind: "failed" });

    process.env.GH_TOKEN = TOKEN;
    try {
      const fetchToken = {
        forge: "github" as const,
        token: { kind: "env" as const, name: "GH_TOKEN" },
      };
      const ready = await fetchedSpec({ ...spec, fetchToken }, {});
      expect(ready).toMatchObject({
        kind: "ready",
        spec: { startFrom: { branch: "main", commit: main } },
      });
    } finally {
      delete process.env.GH_TOKEN;
    }
    expect(git(p.project, "rev-parse", "refs/remotes/origin/main").trim()).toBe(main);
    const basic = Buffer.from(`x-access-token:${TOKEN}`).toString("base64");
    const files = allText(join(p.project, ".git"));
    expect(files).not.toContain(TOKEN);
    expect(files).not.toContain(basic);
  });
});
