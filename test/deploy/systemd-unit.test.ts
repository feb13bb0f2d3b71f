import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { HARDENING } from "../../src/scheduler/export/systemd-hardening.js";
import { skipSystemd, verifyUnits } from "../export/systemd-analyze.js";
import { ROOT } from "../helpers/cli.js";

const UNIT = join(ROOT, "deploy/systemd/autoloop-cron.service");
const lines = readFileSync(UNIT, "utf8").split("\n");
const settings = lines.filter((l) => /^[A-Za-z]+=/.test(l));

describe("deploy/systemd/autoloop-cron.service", () => {
  it.each([
    "User=autoloop-cron",
    "DynamicUser=no",
    "StateDirectory=autoloop-cron",
    "WorkingDirectory=/etc/autoloop-cron",
    "ExecStart=/usr/bin/env autoloop-cron start --config /etc/autoloop-cron/autoloop-cron.toml",
    "EnvironmentFile=-/etc/autoloop-cron/env",
    "Restart=on-failure",
    "RestartSec=5s",
    "KillMode=mixed",
    "TimeoutStopSec=90s",
    "ProtectHome=yes",
    "WantedBy=multi-user.target",
  ])("sets %s", (line) => {
    expect(settings).toContain(line);
  });

  it("has the sandbox generated units get, and nothing that breaks Node", () => {
    for (const line of HARDENING) expect(settings).toContain(line);
    expect(settings.some((l) => l.startsWith("MemoryDenyWriteExecute="))).toBe(false);
    expect(settings.some((l) => l.startsWith("ReadWritePaths="))).toBe(true);
  });

  it("has the env example it points to, with references only for the config", () => {
    const env = readFileSync(join(ROOT, "deploy/systemd/env.example"), "utf8");
    expect(env).toMatch(/^ALERT_SMTP_URL=/m);
    expect(env).toMatch(/^ALERT_WEBHOOK_SECRET=/m);
  });
});

describe.skipIf(skipSystemd)("systemd-analyze verify", () => {
  it("accepts the shipped unit without a complaint", async () => {
    expect(await verifyUnits([UNIT])).toEqual({ exitCode: 0, stderr: "" });
  });
});
