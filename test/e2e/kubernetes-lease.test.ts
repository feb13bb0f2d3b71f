// Two daemons (real processes) taking turns by a Kubernetes Lease on a loopback API server:
// both create it at once and one wins (409 Conflict to the other), it fires and the other
// stands by; killed with SIGKILL, the holder is replaced within twice the lease; with the API
// unreachable the new holder stops firing before its lease could lapse.
import { existsSync, mkdirSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { execa } from "execa";
import { afterEach, describe, expect, it } from "vitest";
import { AUTOLOOP_CRON, cleanEnv, cleanupTempDirs, tempDir } from "../helpers/cli.js";
import { FakeKubernetes } from "../helpers/fake-kubernetes.js";
import { waitFor } from "../helpers/wait.js";

afterEach(cleanupTempDirs);

const LEASE_MS = 2000;

function project(apiServer: string): string {
  const dir = tempDir("autoloop-k8s-lease-");
  mkdirSync(join(dir, "schedules"));
  mkdirSync(join(dir, "work"));
  writeFileSync(join(dir, "token"), "sa-token-abcdef\n");
  writeFileSync(
    join(dir, "autoloop-cron.toml"),
    `state_dir = "state"\n[http]\nlisten = ""\n[ha]\nlease = "${LEASE_MS / 1000}s"\n[ha.kubernetes]\nname = "cron"\nnamespace = "agents"\napi_server = "${apiServer}"\ntoken_file = "token"\n`,
  );
  writeFileSync(
    join(dir, "schedules", "tick.toml"),
    `[[schedule]]\nname = "tick"\ncron = "* * * * * *"\nkind = "command"\ncommand = ["/bin/true"]\nproject_dir = "../work"\n`,
  );
  return dir;
}

/** The slots claimed, as epoch ms. */
function claimed(dir: string): number[] {
  const root = join(dir, "state", "claims", "tick");
  if (!existsSync(root)) return [];
  return readdirSync(root)
    .filter((f) => !f.endsWith(".tmp"))
    .map((f) => Date.parse(decodeURIComponent(f)));
}

function daemon(dir: string) {
  const p = execa(process.execPath, [AUTOLOOP_CRON, "start", "--config", "autoloop-cron.toml"], {
    cwd: dir,
    env: cleanEnv(),
    extendEnv: false,
    reject: false,
    all: true,
  });
  const out = { log: "" };
  p.all?.on("data", (chunk: Buffer) => {
    out.log += chunk.toString("utf8");
  });
  return Object.assign(p, { out });
}

const tookOver = (log: string) => log.includes("lease taken");

describe("daemons taking turns by a Kubernetes Lease", () => {
  it("of two, one takes the Lease (409 to the other) and fires; the other takes over a killed holder within twice the lease, and stops firing when the API is gone", async () => {
    const api = await new FakeKubernetes().start();
    api.token = "sa-token-abcdef";
    const dir = project(api.url);
    // Both find no Lease and create it at once: the API server accepts one, 409 to the other.
    api.race(2);
    const daemons = [daemon(dir), daemon(dir)];
    try {
      const [first, second] = await waitFor(() => {
        const i = daemons.findIndex((d) => tookOver(d.out.log));
        return i >= 0 && [daemons[i]!, daemons[1 - i]!];
      }, "a daemon taking the Lease");
      await waitFor(() => second.out.log.includes("standby:"), "the other standing by");
      expect(api.statuses.filter((s) => s === 201 || s === 409)).toEqual([201, 409]);
      await waitFor(() => claimed(dir).length >= 3, "slots fired by the first");
      expect(tookOver(second.out.log)).toBe(false);
      expect(existsSync(join(dir, "state", "lease"))).toBe(false); // no lease files
      const holder = api.spec("agents", "cron")?.holderIdentity;

      first.kill("SIGKILL");
      const killedAt = Date.now();
      await first;
      await waitFor(() => tookOver(second.out.log), "the takeover", 3 * LEASE_MS);
      expect(Date.now() - killedAt).toBeLessThan(2 * LEASE_MS);
      expect(api.spec("agents", "cron")).toMatchObject({ leaseTransitions: 1 });
      expect(api.spec("agents", "cron")?.holderIdentity).not.toBe(holder);
      const before = claimed(dir).length;
      await waitFor(() => claimed(dir).length >= before + 2, "slots fired by the second");

      await api.stop();
      const stoppedAt = Date.now();
      const result = await second;
      expect(result.exitCode).toBe(1);
      const lost = result.all!.split("\n").find((l) => l.includes("lease lost"))!;
      expect(lost).toContain("stopped firing");
      const lostAt = (JSON.parse(lost) as { time: number }).time;
      // Its last renewal was before the API went away: the lease lapses within LEASE_MS of it,
      // and the holder stops firing before that, when a standby could take it.
      expect(lostAt - stoppedAt).toBeLessThan(LEASE_MS);
      const last = api.spec("agents", "cron") as { renewTime: string };
      expect(lostAt).toBeLessThan(Date.parse(last.renewTime) + LEASE_MS);
      expect(claimed(dir).filter((slot) => slot > lostAt)).toEqual([]);
      expect(api.problems).toEqual([]);
    } finally {
      for (const d of daemons) d.kill("SIGKILL");
      await Promise.all(daemons);
      await api.stop().catch(() => {});
    }
  }, 40_000);
});
