// Bundled and run by bench/delivery.mjs in a process of its own, as the daemon's side: each
// schedule's run delivered through the daemon's queue (open, then update), with the process's
// wall and CPU time per delivery. The loopback forge runs in the parent, so its work is not
// counted here; the push's git runs in a child process, so its CPU is not either.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { DeliveryQueue } from "../src/delivery/queue.js";
import { parseDeliveryRecord } from "../src/delivery/record.js";
import { runDelivery } from "../src/delivery/run-delivery.js";
import { parseConfigText } from "../src/scheduler/config/config.js";
import {
  parseScheduleFile,
  type Schedule,
  scheduleDefaults,
} from "../src/scheduler/schedules/schedule-file.js";
import { worktreeRun } from "../test/helpers/delivery-world.js";

interface Args {
  root: string;
  project: string;
  apiUrl: string;
  schedules: number;
  /** Of the schedules' names and run ids: each child's are its own. */
  prefix: string;
}

function scheduleNamed(name: string, a: Args): Schedule {
  const config = parseConfigText("autoloop-cron.toml", "", a.root).config!;
  const text = `[[schedule]]\nname = "${name}"\ncron = "0 2 * * *"\npreset = "simplify"\nobjective = "o"\ndeliver = { pull_request = { forge = "github", base = "main", token_env = "GH_TOKEN", api_url = "${a.apiUrl}", labels = ["autoloop"], reviewers = ["octocat"] } }\n`;
  const file = parseScheduleFile("s.toml", text, scheduleDefaults(config), {
    fileDir: a.root,
    configDir: a.root,
  });
  return { ...file.schedules[0]!, projectDir: a.project } as Schedule;
}

const a = JSON.parse(process.argv[2]!) as Args;
const path = join(a.root, `${a.prefix}-deliveries.jsonl`);
const queue = DeliveryQueue.open({ path, attempt: { env: process.env } });
const timings: Array<{ id: string; round: string; wallMs: number; cpuMs: number }> = [];
for (const round of ["open", "update"]) {
  for (let s = 0; s < a.schedules; s++) {
    const schedule = scheduleNamed(`${a.prefix}-${s}`, a);
    const runId = `${a.prefix}-${round}-${s}`;
    const d = await runDelivery(schedule, runId, worktreeRun(a.project, runId, `${runId}\n`));
    if (d.kind !== "deliver") throw new Error(d.why);
    queue.enqueue(d.job);
    const cpu = process.cpuUsage();
    const t0 = performance.now();
    await queue.deliverDue();
    const used = process.cpuUsage(cpu);
    const wallMs = performance.now() - t0;
    timings.push({ id: runId, round, wallMs, cpuMs: (used.user + used.system) / 1000 });
    if (queue.result(runId)?.kind !== "delivered")
      throw new Error(`${runId}: ${JSON.stringify(queue.result(runId))}`);
  }
}
await queue.close();
// When the push ended and the pull request was made, by the queue's own fsynced records.
const at = new Map<string, { pushed?: number; delivered?: number }>();
for (const line of readFileSync(path, "utf8").split("\n")) {
  const r = parseDeliveryRecord(line);
  if (r === undefined || (r.type !== "pushed" && r.type !== "delivered")) continue;
  at.set(r.id, { ...at.get(r.id), [r.type]: Date.parse(r.at) });
}
const out = timings.map((t) => {
  const { pushed = Number.NaN, delivered = Number.NaN } = at.get(t.id) ?? {};
  return { ...t, afterPushMs: delivered - pushed };
});
process.stdout.write(`${JSON.stringify(out)}\n`);
