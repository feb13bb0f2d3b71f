// A run commits what the remote's rules decline (a file past its size limit, a secret found by
// push protection): the delivery is given up at once, with the remote's words, rather than
// pushing the same objects again for a day. A real bare repository behind git's smart-HTTP
// server whose pre-receive hook declines, as GitHub's, GitLab's and Gitea's do.
import { chmodSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { DeliveryQueue } from "../../src/delivery/queue.js";
import { runDelivery } from "../../src/delivery/run-delivery.js";
import { parseConfigText } from "../../src/scheduler/config/config.js";
import {
  parseScheduleFile,
  type Schedule,
  scheduleDefaults,
} from "../../src/scheduler/schedules/schedule-file.js";
import { cleanupTempDirs } from "../helpers/cli.js";
import { deliveryProject, worktreeRun } from "../helpers/delivery-world.js";

const TOKEN = "ghp_loopbacktoken0123456789";

const closers: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const c of closers.splice(0).reverse()) await c();
});
afterAll(cleanupTempDirs);

describe("a commit the remote's rules decline", () => {
  it("is not pushed again: the delivery is given up with the remote's words", async () => {
    const p = await deliveryProject("octo/app", TOKEN);
    closers.push(() => p.gitHttp.close());
    const hook = join(p.bare, "hooks", "pre-receive");
    writeFileSync(hook, "#!/bin/sh\necho 'error: GH001: Large files detected.' >&2\nexit 1\n");
    chmodSync(hook, 0o755);
    const config = parseConfigText("autoloop-cron.toml", "", "/srv").config!;
    const text = `[[schedule]]\nname = "simplify"\ncron = "0 2 * * *"\npreset = "simplify"\nobjective = "o"\nproject_dir = "/srv/p"\ndeliver = { pull_request = { forge = "github", base = "main", token_env = "GH_TOKEN", api_url = "http://127.0.0.1:9" } }\n`;
    const file = parseScheduleFile("s.toml", text, scheduleDefaults(config), {
      fileDir: "/srv",
      configDir: "/srv",
    });
    const schedule = { ...file.schedules[0]!, projectDir: p.project } as Schedule;
    const outcome = worktreeRun(p.project, "run-1", "a huge file\n");
    const d = await runDelivery(schedule, "run-1", outcome);
    if (d.kind !== "deliver") throw new Error(d.why);
    const queue = DeliveryQueue.open({
      path: join(p.root, "deliveries.jsonl"),
      attempt: { env: { GH_TOKEN: TOKEN } },
    });
    closers.push(() => queue.close());
    queue.enqueue(d.job);
    await queue.deliverDue();
    const result = queue.result("run-1");
    expect(result).toMatchObject({ kind: "dead" });
    expect(JSON.stringify(result)).toContain("GH001: Large files detected");
  }, 30_000);
});
