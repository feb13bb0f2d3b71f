// One peer scheduler (node-cron, node-schedule or `cron`) doing what the peers row compares:
//   load:  100,000 jobs with distinct expressions (the scale bench's `M H D Mo *`), in UTC;
//          prints "ready" once every job is scheduled, then stays until killed.
//   crowd <epoch ms>: 1,000 jobs due on that second; prints each job's lateness (ms from the
//          second to its callback) as JSON once they have all run, or 10 s after the second.
import { CronJob } from "cron";
import nodeCron from "node-cron";
import schedule from "node-schedule";

const [peer, mode, arg] = process.argv.slice(2);

const SCHEDULERS = {
  "node-cron": (expr, fn) => nodeCron.schedule(expr, fn, { timezone: "UTC" }),
  "node-schedule": (expr, fn) => schedule.scheduleJob({ rule: expr, tz: "UTC" }, fn),
  cron: (expr, fn) => CronJob.from({ cronTime: expr, onTick: fn, start: true, timeZone: "UTC" }),
};
const add = SCHEDULERS[peer];
if (add === undefined) throw new Error(`unknown peer ${peer}`);

if (mode === "load") {
  for (let n = 0; n < 100_000; n++) {
    const m = n % 60;
    const h = Math.floor(n / 60) % 24;
    const d = 1 + (Math.floor(n / 1440) % 28);
    const mo = 1 + (Math.floor(n / 40320) % 12);
    add(`${m} ${h} ${d} ${mo} *`, () => {});
  }
  process.stdout.write("ready\n");
} else if (mode === "crowd") {
  const at = new Date(Number(arg));
  const expr = `${at.getUTCSeconds()} ${at.getUTCMinutes()} ${at.getUTCHours()} * * *`;
  const lateness = [];
  const done = () => {
    process.stdout.write(`${JSON.stringify(lateness)}\n`);
    process.exit(0);
  };
  for (let i = 0; i < 1000; i++)
    add(expr, () => {
      lateness.push(Date.now() - at.getTime());
      if (lateness.length === 1000) done();
    });
  setTimeout(done, at.getTime() - Date.now() + 10_000);
} else throw new Error(`unknown mode ${mode}`);
