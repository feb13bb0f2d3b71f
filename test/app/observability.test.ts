// What the daemon's observability costs when nothing can read it: without [http], no process
// metrics (their event-loop sampler woke an idle daemon ten times a second).
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { startObservability } from "../../src/app/observability.js";
import { loadConfig } from "../../src/scheduler/config/config.js";
import { SchedulerDaemon } from "../../src/scheduler/daemon/daemon.js";
import { cleanupTempDirs, tempDir } from "../helpers/cli.js";
import { silentLogger, writeCronConfig } from "../helpers/daemon.js";

afterEach(cleanupTempDirs);

async function observe(http: string) {
  const dir = tempDir();
  writeCronConfig(dir, "");
  const file = join(dir, "autoloop-cron.toml");
  writeFileSync(file, `state_dir = "state"\n${http}`);
  const config = loadConfig(file);
  const daemon = new SchedulerDaemon(config, { logger: silentLogger });
  const observability = await startObservability(daemon, config, silentLogger);
  const names = (await observability.metrics.registry.getMetricsAsJSON()).map((m) => m.name);
  await observability.close();
  return { names, url: observability.url };
}

describe("startObservability", () => {
  it("collects no process metrics when /metrics is not served", async () => {
    const { names, url } = await observe(`[http]\nlisten = ""\n`);
    expect(url).toBe("");
    expect(names).toContain("autoloop_cron_runs_total");
    expect(names.some((n) => n.startsWith("nodejs_eventloop_lag"))).toBe(false);
  });

  it("collects them, event-loop lag included, when it is", async () => {
    const { names, url } = await observe(`[http]\nlisten = "127.0.0.1:0"\n`);
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+/);
    expect(names).toContain("nodejs_eventloop_lag_p99_seconds");
  });
});
