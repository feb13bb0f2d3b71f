// What a CronJob carries so its pods keep the daemon's promises: the Job's name for the slot
// (downward API), a deadline that fits the slot's jitter and retries, and notes saying so.
import { CronJob } from "kubernetes-models/batch/v1";
import { afterEach, describe, expect, it } from "vitest";
import { parseAllDocuments } from "yaml";
import { cleanupTempDirs } from "../helpers/cli.js";
import { configDir, runExport } from "./config-fixture.js";

afterEach(cleanupTempDirs);

const CONFIG = 'state_dir = "/var/lib/autoloop-cron/state"\n[http]\nlisten = "0.0.0.0:9464"\n';
const project = 'project_dir = "/var/lib/autoloop-cron/repos/app"';

describe("export kubernetes: one slot, once, with its jitter and retries", () => {
  it("hands each pod its Job's name and sizes the Job's deadline to every attempt", async () => {
    const retry = 'retry = { attempts = 3, delay = "1m", on = ["failed"] }';
    const dir = configDir(CONFIG, {
      "main.toml": [
        { name: "nightly", cron: "0 2 * * *", extra: `${project}\ntimeout = "10m"` },
        {
          name: "careful",
          cron: "0 3 * * *",
          extra: `${project}\ntimeout = "10m"\njitter = "5m"\n${retry}`,
        },
      ],
    });
    const r = await runExport(["kubernetes"], dir);
    expect(r.code).toBe(0);
    // biome-ignore lint/suspicious/noExplicitAny: parsed YAML, checked field by field below
    const jobs = parseAllDocuments(r.stdout).map((d) => d.toJS() as any);
    const [nightly, careful] = jobs.filter((o) => o.kind === "CronJob");
    for (const cronJob of [nightly, careful]) {
      expect(() => new CronJob(cronJob).validate()).not.toThrow();
      const container = cronJob.spec.jobTemplate.spec.template.spec.containers[0];
      expect(container.env).toContainEqual({
        name: "AUTOLOOP_CRON_JOB_NAME",
        valueFrom: { fieldRef: { fieldPath: "metadata.labels['batch.kubernetes.io/job-name']" } },
      });
    }
    expect(nightly.spec.jobTemplate.spec.activeDeadlineSeconds).toBe(10 * 60 + 60);
    // 5 min of jitter, 3 attempts of 10 min (+1 min margin each), waits of 1 and 2 min.
    expect(careful.spec.jobTemplate.spec.activeDeadlineSeconds).toBe((5 + 3 * 11 + 1 + 2) * 60);
    expect(r.stdout).toContain("# jitter: the pod waits its slot's jitter before the run starts.");
    expect(r.stdout).toContain("# retry: the pod runs up to 3 attempts");
    expect(r.stdout).not.toContain("jitter is not carried over");
  });

  it("refuses a schedule with an event trigger, which only a daemon serves, naming the fix", async () => {
    const dir = configDir(CONFIG, {
      "main.toml": [
        {
          name: "on-push",
          cron: "0 2 * * *",
          extra: `${project}\nhook = { secret_env = "HOOK_SECRET" }`,
        },
      ],
    });
    await expect(runExport(["kubernetes"], dir)).rejects.toThrow(
      'schedules/main.toml: schedule "on-push": hook (an event trigger, POST /hooks/<schedule>) needs the daemon\'s HTTP server, which the Kubernetes mode does not run; remove hook from the schedule to export it',
    );
  });

  it('refuses catch_up = "all", which a CronJob cannot keep (it starts only the latest missed slot)', async () => {
    const dir = configDir(CONFIG, {
      "main.toml": [{ name: "every", cron: "*/30 * * * *", extra: `${project}\ncatch_up = "all"` }],
    });
    await expect(runExport(["kubernetes"], dir)).rejects.toThrow(
      'schedules/main.toml: schedule "every": catch_up = "all" runs every missed slot, but a CronJob starts only the most recent one; set catch_up = "latest"',
    );
  });
});
