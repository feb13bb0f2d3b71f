// The on-call contract, through the real daemon (`autoloop-cron start` as a child process):
// three schedules failing every second in three ways page once each, grow one incident each,
// `status` names all three, and fixing one resolves it with a single [RESOLVED].
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { execa } from "execa";
import { afterEach, describe, expect, it } from "vitest";
import { AUTOLOOP_CRON, cleanEnv, cleanupTempDirs, tempDir } from "../helpers/cli.js";
import { waitFor } from "../helpers/wait.js";

afterEach(cleanupTempDirs);

// Every 3 s: a stuck demo run takes ~2.5 s, so a busy machine skips a slot now and then; a very
// busy one (CI) can skip three in a row, which rightly opens a schedule_trouble incident of its
// own: the test tolerates that one and checks the run-failure incidents.
const stuckSchedule = (objective: string) => `[[schedule]]
name = "stuck"
cron = "*/3 * * * * *"
preset = "demo"
objective = "${objective}"
project_dir = "../work"
max_iterations = 6

[schedule.monitor]
gate_rejections = 2
`;

const commandSchedules = `[[schedule]]
name = "exit-seven"
cron = "* * * * * *"
kind = "command"
command = [${JSON.stringify(process.execPath)}, "-e", "console.error('build broke: missing module left-pad'); process.exit(7)"]
project_dir = "../work"

[[schedule]]
name = "no-binary"
cron = "* * * * * *"
kind = "command"
command = ["autoloop-test-no-such-binary"]
project_dir = "../work"
`;

interface Mail {
  file: string;
  fingerprint: string;
  subject: string;
  text: string;
}

function mails(state: string): Mail[] {
  const dir = join(state, "mail");
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .filter((f) => f.endsWith(".eml"))
    .map((file) => {
      const text = readFileSync(join(dir, file), "utf8").replace(/=\r?\n/g, "");
      return {
        file,
        fingerprint: /^X-Autoloop-Fingerprint: (.*)$/m.exec(text)?.[1] ?? "",
        subject: /^Subject: (.*)$/m.exec(text)?.[1] ?? "",
        text,
      };
    });
}

const of = (all: Mail[], schedule: string) =>
  all.filter((m) => m.fingerprint.endsWith(`:schedule/${schedule}`));

describe("the on-call contract, through the real daemon", () => {
  it("pages once per failing schedule, grows its incident, and resolves it on recovery", async () => {
    const root = tempDir("autoloop-oncall-");
    mkdirSync(join(root, "schedules"));
    mkdirSync(join(root, "work"));
    const config = join(root, "autoloop-cron.toml");
    writeFileSync(
      config,
      'state_dir = "state"\nmax_concurrent_runs = 6\n[http]\nlisten = ""\n[defaults]\ncatch_up = "none"\n',
    );
    writeFileSync(join(root, "schedules", "stuck.toml"), stuckSchedule("Ship it (stuck)"));
    writeFileSync(join(root, "schedules", "commands.toml"), commandSchedules);
    const state = join(root, "state");
    const cron = (...args: string[]) =>
      execa(process.execPath, [AUTOLOOP_CRON, ...args, "--config", config], {
        env: cleanEnv(),
        extendEnv: false,
        reject: false,
      });
    const statusJson = async () => JSON.parse((await cron("status", "--json")).stdout);

    const daemon = execa(process.execPath, [AUTOLOOP_CRON, "start", "--config", config], {
      env: cleanEnv(),
      extendEnv: false,
      reject: false,
    });
    try {
      // Seven failed runs of each schedule, in the monitor's own count.
      await waitFor(
        async () => {
          const s = await statusJson();
          const counts = ["stuck", "exit-seven", "no-binary"].map(
            (name) =>
              s.firing.find((f: { schedule?: string }) => f.schedule === name)?.group
                ?.consecutiveFailures ?? 0,
          );
          return counts.every((n) => n >= 7);
        },
        "7 failed runs of each schedule",
        // ~50 s on an idle machine; a busy one (the whole suite on two cores) skips more slots.
        150_000,
        250,
      );
      const all = mails(state);
      for (const schedule of ["stuck", "exit-seven", "no-binary"]) {
        const sent = of(all, schedule);
        expect(
          sent.length,
          `${schedule}: ${sent.map((m) => m.subject).join(" | ")}`,
        ).toBeGreaterThan(0);
        expect(sent.length, schedule).toBeLessThanOrEqual(2);
      }
      // What the command failures say: exit code, and the output of the run.
      const exit7 = of(all, "exit-seven")[0]!.text;
      expect(exit7).toContain("exit code 7");
      expect(exit7).toContain("build broke: missing module left-pad");
      expect(of(all, "no-binary")[0]!.text).toContain("autoloop-test-no-such-binary");

      const status = await cron("status");
      expect(status.exitCode).toBe(1);
      for (const schedule of ["stuck", "exit-seven", "no-binary"])
        expect(status.stdout).toMatch(new RegExp(`${schedule}: runs \\w.*failed in a row since`));
      expect(status.stdout).toContain("[gate_stuck:schedule/stuck]");

      const open = (await statusJson()).incidents.filter(
        (i: { status: string; slug: string }) =>
          i.status === "open" && !i.slug.startsWith("schedule-trouble-"),
      );
      expect(open.map((i: { slug: string }) => i.slug).sort()).toEqual([
        "gate-stuck-stuck",
        "run-failed-exit-seven",
        "run-failed-no-binary",
      ]);
      const incident = readFileSync(join(state, "incidents", "gate-stuck-stuck.md"), "utf8");
      expect(
        incident.match(/- Also: run stuck-\S+ (is stuck|stopped) at the gate/g)?.length,
      ).toBeGreaterThanOrEqual(5);

      // The agent is fixed: the next run completes, and the schedule's incident resolves.
      writeFileSync(join(root, "schedules", "stuck.toml"), stuckSchedule("Ship it"));
      await waitFor(
        () => of(mails(state), "stuck").some((m) => m.subject.startsWith("[RESOLVED]")),
        "the [RESOLVED] mail for stuck",
        60_000,
        250,
      );
      const after = await statusJson();
      expect(after.incidents.map((i: { slug: string }) => i.slug)).not.toContain(
        "gate-stuck-stuck",
      );
      expect(readFileSync(join(state, "incidents", "gate-stuck-stuck.md"), "utf8")).toMatch(
        /status: "?resolved/,
      );
      const stuckMails = of(mails(state), "stuck");
      expect(stuckMails.filter((m) => m.subject.startsWith("[RESOLVED]"))).toHaveLength(1);
      expect(stuckMails.find((m) => m.subject.startsWith("[RESOLVED]"))!.text).toMatch(
        /Resolved by:\s+run stuck-\S+ completed/,
      );
    } finally {
      daemon.kill("SIGTERM");
      await daemon;
    }
    expect((await daemon).exitCode).toBe(0);
  }, 240_000);
});
