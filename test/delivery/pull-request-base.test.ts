// A pull request's base comes from what the daemon knows, never from the run's worktree
// metadata (the run's own file): the branch the daemon fetched for the run, else the remote's
// HEAD branch. A run that rewrites its meta.json's base_branch changes nothing.
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { DeliveryQueue } from "../../src/delivery/queue.js";
import { runDelivery } from "../../src/delivery/run-delivery.js";
import { metaPath } from "../../src/harness/worktree/worktree.js";
import { parseConfigText } from "../../src/scheduler/config/config.js";
import {
  parseScheduleFile,
  type Schedule,
  scheduleDefaults,
} from "../../src/scheduler/schedules/schedule-file.js";
import { cleanupTempDirs } from "../helpers/cli.js";
import { deliveryProject, worktreeRun } from "../helpers/delivery-world.js";
import { FakeGitHub } from "../helpers/fake-github.js";
import { git } from "../helpers/git.js";

const TOKEN = "ghp_basetesttoken0123456789";

const closers: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const c of closers.splice(0).reverse()) await c();
});
afterAll(cleanupTempDirs);

/** A project whose remote has `main` (its HEAD) and `release`, and a schedule naming no base. */
async function world() {
  const p = await deliveryProject("octo/app", TOKEN);
  git(p.project, "branch", "release");
  git(p.project, "push", "--quiet", p.bare, "release");
  const github = await new FakeGitHub("octo", "app", TOKEN).start();
  closers.push(
    () => p.gitHttp.close(),
    () => github.close(),
  );
  const config = parseConfigText("autoloop-cron.toml", "", "/srv").config!;
  const text = `[[schedule]]\nname = "simplify"\ncron = "0 2 * * *"\npreset = "simplify"\nobjective = "o"\nproject_dir = "/srv/p"\ndeliver = { pull_request = { forge = "github", token_env = "GH_TOKEN", api_url = "${github.url}" } }\n`;
  const file = parseScheduleFile("s.toml", text, scheduleDefaults(config), {
    fileDir: "/srv",
    configDir: "/srv",
  });
  expect(file.problems).toEqual([]);
  const schedule = { ...file.schedules[0]!, projectDir: p.project } as Schedule;
  const queue = DeliveryQueue.open({
    path: join(p.root, "deliveries.jsonl"),
    attempt: { env: { GH_TOKEN: TOKEN } },
  });
  closers.push(() => queue.close());
  return { ...p, github, schedule, queue };
}

/** A completed run that pointed its worktree metadata at branch `release`. */
function runClaimingRelease(project: string, runId: string) {
  const outcome = worktreeRun(project, runId, "export const double = (x) => 2 * x;\n");
  const path = metaPath(join(project, ".autoloop"), runId);
  const meta = JSON.parse(readFileSync(path, "utf8")) as Record<string, unknown>;
  writeFileSync(path, JSON.stringify({ ...meta, base_branch: "release" }));
  return outcome;
}

describe("the base of a delivered pull request", () => {
  it("is the branch the daemon fetched for the run, whatever the run's metadata says", async () => {
    const w = await world();
    const outcome = runClaimingRelease(w.project, "run-1");
    const d = await runDelivery(w.schedule, "run-1", outcome, undefined, "main");
    expect(d).toMatchObject({ kind: "deliver", job: { base: "main" } });
    if (d.kind === "deliver") w.queue.enqueue(d.job);
    await w.queue.deliverDue();
    expect(w.github.pulls.map((p) => p.base)).toEqual(["main"]);
    expect(w.github.problems).toEqual([]);
  });

  it("is the remote's HEAD branch, asked at delivery, when the daemon fetched nothing", async () => {
    const w = await world();
    const outcome = runClaimingRelease(w.project, "run-1");
    const d = await runDelivery(w.schedule, "run-1", outcome);
    if (d.kind !== "deliver") throw new Error(d.why);
    expect(d.job.base).toBeUndefined();
    w.queue.enqueue(d.job);
    await w.queue.deliverDue();
    expect(w.github.pulls.map((p) => p.base)).toEqual(["main"]);
    expect(w.queue.result("run-1")).toMatchObject({ kind: "delivered", action: "opened" });
  });
});
