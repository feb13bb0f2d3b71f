// Budgets against runs that hide what they spent, through a real daemon and harness: an agent
// that swaps its journal after spending past a `per_day` budget, one that reports usage too
// large to write, one that plants a cheap terminal record in a swapped journal, and one that
// kills its harness before its end. Each time the next slot is skipped: the daemon books what
// the harness reported (`end.json`, out of the run's reach), and a spend it cannot establish,
// or knows only from the run's journal, counts as at least the ceiling the run was given.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { execa } from "execa";
import { afterEach, describe, expect, it } from "vitest";
import {
  AUTOLOOP_CRON,
  cleanEnv,
  cleanupTempDirs,
  privateRunDir,
  tempDir,
} from "../helpers/cli.js";
import { waitFor } from "../helpers/wait.js";

afterEach(cleanupTempDirs);

interface Row {
  runId: string;
  status: string;
  skipCause?: string;
  costUsd?: number;
  tokens?: number;
  spendBasis?: string;
}

/** A daemon whose `spender` schedule runs a one-iteration preset whose agent is `script`. */
async function withSpender(
  budget: string,
  script: string,
  test: (fire: () => Promise<Row>, root: string) => Promise<void>,
  maxIterations = 1,
): Promise<void> {
  const root = tempDir("autoloop-budget-spend-");
  mkdirSync(join(root, "schedules"));
  mkdirSync(join(root, "work", ".autoloop"), { recursive: true });
  mkdirSync(join(root, "presets", "spender"), { recursive: true });
  writeFileSync(
    join(root, "presets", "spender", "autoloops.toml"),
    `[event_loop]\nmax_iterations = ${maxIterations}\n[backend]\ncommand = "sh"\nargs = ["-c", ${JSON.stringify(script)}]\n`,
  );
  const config = join(root, "autoloop-cron.toml");
  writeFileSync(
    config,
    'state_dir = "state"\n[http]\nlisten = ""\n[defaults]\ncatch_up = "none"\n',
  );
  writeFileSync(
    join(root, "schedules", "s.toml"),
    `[[schedule]]\nname = "spender"\ncron = "0 0 1 1 *"\npreset = "spender"\nobjective = "x"\nproject_dir = "../work"\nbudget = ${budget}\n`,
  );
  const cron = (...args: string[]) =>
    execa(process.execPath, [AUTOLOOP_CRON, ...args, "--config", config], {
      env: cleanEnv(),
      extendEnv: false,
      reject: false,
    });
  const rows = async (): Promise<Row[]> =>
    JSON.parse((await cron("runs", "--schedule", "spender", "--json")).stdout);
  const fire = async (): Promise<Row> => {
    const before = (await rows()).length;
    await cron("fire", "spender");
    return waitFor(
      async () => {
        const all = await rows();
        const row = all.length > before ? all[0] : undefined;
        return row !== undefined && !["running", "pending"].includes(row.status) && row;
      },
      "the slot's outcome",
      60_000,
      100,
    );
  };
  const daemon = execa(process.execPath, [AUTOLOOP_CRON, "start", "--config", config], {
    env: cleanEnv(),
    extendEnv: false,
    reject: false,
  });
  try {
    await waitFor(() => existsSync(join(root, "state", "daemon.json")), "the daemon", 30_000);
    await test(fire, root);
  } finally {
    daemon.kill("SIGTERM");
    await daemon;
  }
}

/** The agent's usage for its call, as a `command` backend reports it (AUTOLOOP_USAGE_FILE). */
const reportUsage = (usage: object) =>
  `printf '%s' '${JSON.stringify(usage)}' > "$AUTOLOOP_USAGE_FILE"`;

describe("a run that hides its spend from the budget", () => {
  it("swaps its journal after spending $5 of a $1 per_day budget: the next slot is skipped", async () => {
    const swap =
      ": > .autoloop/j.new && mv .autoloop/j.new .autoloop/journal.jsonl; echo spent and swapped";
    const script = `${reportUsage({ model: "m", input_tokens: 1000, output_tokens: 1000, cost_usd: 5 })}; ${swap}`;
    await withSpender("{ per_day = 1.0 }", script, async (fire, root) => {
      // Earlier runs' lines: the next run's records start past what the swapped file holds.
      const journal = join(root, "work", ".autoloop", "journal.jsonl");
      const old = `{"run": "old-run", "topic": "loop.start", "ts": "2026-01-01T00:00:00.000Z", "v": 1, "fields": {"objective": "${"x".repeat(200)}"}}\n`;
      writeFileSync(journal, old.repeat(100));
      const first = await fire();
      expect(first.status).not.toBe("skipped");
      expect(readFileSync(journal, "utf8").length).toBeLessThan(old.length * 100);
      const second = await fire();
      expect(second).toMatchObject({ status: "skipped", skipCause: "budget_exhausted" });
    });
  }, 120_000);

  it("reports 1e308 tokens against a token budget: counted as its ceiling, the next slot is skipped", async () => {
    const script = `${reportUsage({ model: "m", input_tokens: 1e308, output_tokens: 1e308 })}; echo spent`;
    await withSpender("{ tokens_per_day = 1000000 }", script, async (fire) => {
      const first = await fire();
      expect(first.status).not.toBe("skipped");
      expect(first.tokens).toBeUndefined(); // unknown, not 0
      const second = await fire();
      expect(second).toMatchObject({ status: "skipped", skipCause: "budget_exhausted" });
    });
  }, 120_000);

  it("reports tokens but no price: the dollar budget counts its whole per-run ceiling, and status says so", async () => {
    const script = `${reportUsage({ model: "unpriced-model", input_tokens: 100, output_tokens: 100 })}; echo spent`;
    await withSpender("{ per_day = 8.0, per_run = 4.0 }", script, async (fire, root) => {
      const first = await fire();
      expect(first.status).not.toBe("skipped");
      expect(first.costUsd ?? 0).toBe(0); // no price: nothing known in dollars
      const status = await execa(
        process.execPath,
        [AUTOLOOP_CRON, "status", "--config", join(root, "autoloop-cron.toml")],
        { env: cleanEnv(), extendEnv: false, reject: false },
      );
      const line = status.stdout.split("\n").find((l) => l.includes("spender: today")) ?? "";
      expect(line).toContain("counts each at its whole per-run ceiling");
      expect(line).not.toContain("add tokens_per_day"); // a token limit counts no dollars
      // A second such run takes the day's other $4: a third is skipped, however few tokens they used.
      expect((await fire()).status).not.toBe("skipped");
      expect(await fire()).toMatchObject({ status: "skipped", skipCause: "budget_exhausted" });
    });
  }, 120_000);
});

describe("a run whose journal understates its spend", () => {
  it("plants a $0.01 loop.stop in a swapped journal after spending $5: the ledger books end.json's $5", async () => {
    // The harness goes on writing to the old file; the daemon reads the new one, whose last
    // terminal record for this run is the agent's.
    const forged = `{"run": "'"$AUTOLOOP_RUN_ID"'", "iteration": "1", "topic": "loop.stop", "ts": "'"$(date -u +%Y-%m-%dT%H:%M:%S.000Z)"'", "v": 1, "fields": {"reason": "max_iterations", "cost_usd": "0.010000", "total_tokens": "10"}}`;
    const swap = `cp .autoloop/journal.jsonl .autoloop/j.new && printf '%s\\n' '${forged}' >> .autoloop/j.new && mv .autoloop/j.new .autoloop/journal.jsonl; echo spent`;
    const script = `${reportUsage({ model: "m", input_tokens: 1000, output_tokens: 1000, cost_usd: 5 })}; ${swap}`;
    await withSpender("{ per_day = 1.0 }", script, async (fire, root) => {
      const journal = join(root, "work", ".autoloop", "journal.jsonl");
      const first = await fire();
      expect(readFileSync(journal, "utf8")).toContain('"cost_usd": "0.010000"'); // the plant took
      const end = JSON.parse(
        readFileSync(join(privateRunDir(join(root, "work"), first.runId), "end.json"), "utf8"),
      );
      expect(end).toMatchObject({ runId: first.runId, complete: false, costUsd: 5 });
      expect(first).toMatchObject({ costUsd: 5, spendBasis: "harness" });
      const second = await fire();
      expect(second).toMatchObject({ status: "skipped", skipCause: "budget_exhausted" });
    });
  }, 120_000);

  it("is SIGKILLed by its agent after a $0.01 iteration: no end.json, counted as its $1 ceiling", async () => {
    // Iteration 1 spends $0.01; iteration 2 kills the harness before it can write its end.
    const script = `if [ "$AUTOLOOP_ITERATION" = 2 ]; then kill -9 $PPID; sleep 1; exit 0; fi; ${reportUsage({ model: "m", input_tokens: 10, output_tokens: 10, cost_usd: 0.01 })}; echo spent`;
    await withSpender(
      "{ per_day = 1.0 }",
      script,
      async (fire, root) => {
        const first = await fire();
        expect(first.status).toBe("interrupted");
        expect(
          existsSync(join(privateRunDir(join(root, "work"), first.runId), "launch.json")),
        ).toBe(true);
        expect(existsSync(join(privateRunDir(join(root, "work"), first.runId), "end.json"))).toBe(
          false,
        );
        expect(first).toMatchObject({ costUsd: 0.01, spendBasis: "journal" });
        const second = await fire();
        expect(second).toMatchObject({ status: "skipped", skipCause: "budget_exhausted" });
      },
      2,
    );
  }, 120_000);
});

// The run's private folder, as its agent can work it out under one user (docs/formats.md).
const PRIVATE_DIR = `d="$XDG_STATE_HOME/autoloop/runs/$AUTOLOOP_RUN_ID.$(printf '%s' "$(realpath "$(dirname "$AUTOLOOP_JOURNAL_FILE")")/journal.jsonl" | sha256sum | cut -c1-12)"`;
const PLANT = `printf '%s' '{"v":1,"runId":"'"$AUTOLOOP_RUN_ID"'","reason":"max_iterations","complete":false,"costUsd":0.01,"totalTokens":10,"iterations":1,"endedAt":"2026-01-01T00:00:00.000Z","pid":1}' > "$d/end.json"`;

describe("a run that plants its own end.json", () => {
  const spend5 = reportUsage({ model: "m", input_tokens: 10, output_tokens: 10, cost_usd: 5 });

  it("then SIGKILLs its harness: a killed harness wrote no end, counted as its $10 ceiling", async () => {
    const script = `${PRIVATE_DIR}; ${spend5}; ${PLANT}; if [ "$AUTOLOOP_ITERATION" = 2 ]; then kill -9 $PPID; sleep 1; fi; echo spent`;
    await withSpender(
      "{ per_day = 10.0 }",
      script,
      async (fire) => {
        const first = await fire();
        expect(first).toMatchObject({ status: "interrupted", costUsd: 5, spendBasis: "journal" });
        const second = await fire();
        expect(second).toMatchObject({ status: "skipped", skipCause: "budget_exhausted" });
      },
      2,
    );
  }, 120_000);
});
