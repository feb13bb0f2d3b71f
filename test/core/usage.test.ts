// What an iteration cost: the `backend.usage` fields from tokens, the agent's own cost or the
// price table (shipped, or the preset's own), and a `command` backend's AUTOLOOP_USAGE_FILE.
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { PRICE_TABLE_DATE, priceOf, usageFields } from "../../src/harness/agents/prices.js";
import { fieldText } from "../../src/journal/codec.js";
import { autoloop, cleanupTempDirs, tempDir } from "../helpers/cli.js";
import { field, journalOf } from "../helpers/journal.js";

afterEach(cleanupTempDirs);

const tokens = {
  input_tokens: 1_000_000,
  output_tokens: 100_000,
  cache_read_tokens: 2_000_000,
  cache_write_tokens: 0,
};

describe("usageFields", () => {
  it("keeps the cost the agent reported", () => {
    expect(usageFields({ model: "claude-sonnet-4-5", ...tokens, cost_usd: 0.5 })).toMatchObject({
      cost_usd: 0.5,
      cost_source: "agent",
      total_tokens: 3_100_000,
    });
  });

  it("prices tokens from the shipped table by the longest model prefix, dated", () => {
    // gpt-5-codex: $1.25 in, $10 out, $0.125 cached, per million.
    expect(usageFields({ model: "gpt-5-codex", ...tokens })).toMatchObject({
      cost_usd: 1.25 + 1 + 0.25,
      cost_source: "price_table",
      price_table: PRICE_TABLE_DATE,
    });
    expect(priceOf("gpt-5-mini-2025-08-07")?.price.input).toBe(0.25);
  });

  it("leaves a cost nobody knows out, never 0", () => {
    const fields = usageFields({ model: "local-llama", ...tokens });
    expect(fields.cost_usd).toBeUndefined();
    expect(fields.cost_source).toBe("unknown");
  });

  it("lets the preset's prices win over the table", () => {
    const fields = usageFields(
      { model: "gpt-5-codex", ...tokens },
      { "gpt-5": { input: 2, output: 20 } },
    );
    // No cache_read price given: cached input costs what input does.
    expect(fields).toMatchObject({ cost_usd: 2 + 2 + 4, cost_source: "config" });
  });
});

describe("a command backend's AUTOLOOP_USAGE_FILE", () => {
  it("becomes the iteration's backend.usage record, priced by the preset", async () => {
    const dir = tempDir();
    const preset = join(dir, "preset");
    mkdirSync(preset);
    const agent = join(dir, "agent.sh");
    writeFileSync(
      agent,
      `#!/bin/sh\nprintf '{"model": "house-model", "input_tokens": 2000000, "output_tokens": 1000000}' > "$AUTOLOOP_USAGE_FILE"\necho LOOP_COMPLETE\n`,
      { mode: 0o755 },
    );
    writeFileSync(
      join(preset, "autoloops.toml"),
      `[backend]\ncommand = ${JSON.stringify(agent)}\n\n[prices."house-model"]\ninput = 1.5\noutput = 3\n`,
    );
    const run = await autoloop(["run", preset, "x", "--quiet"], { cwd: dir });
    expect(run.exitCode, run.stderr).toBe(0);
    const usage = journalOf(dir).find((r) => r.topic === "backend.usage");
    expect(field(usage, "model")).toBe("house-model");
    expect(Number(fieldText(usage!, "cost_usd"))).toBe(6);
    expect(field(usage, "cost_source")).toBe("config");
  });

  it("writes no usage record when the command reports none", async () => {
    const dir = tempDir();
    const run = await autoloop(["run", "demo", "x", "--quiet"], { cwd: dir });
    expect(run.exitCode).toBe(0);
    expect(journalOf(dir).filter((r) => r.topic === "backend.usage")).toEqual([]);
  });

  it("refuses a price entry that is not a number, naming the field", async () => {
    const dir = tempDir();
    const preset = join(dir, "preset");
    mkdirSync(preset);
    writeFileSync(
      join(preset, "autoloops.toml"),
      `[backend]\ncommand = "true"\n\n[prices."house-model"]\ninput = "cheap"\noutput = 3\n`,
    );
    const run = await autoloop(["run", preset, "x", "--quiet"], { cwd: dir });
    expect(run.exitCode).toBe(2);
    expect(run.stderr).toContain(
      'prices.house-model.input: found "cheap"; expected US dollars per million input tokens, 0 or more, such as 3',
    );
  });

  it("refuses prices written without a model, showing how to name one", async () => {
    const dir = tempDir();
    const preset = join(dir, "preset");
    mkdirSync(preset);
    writeFileSync(
      join(preset, "autoloops.toml"),
      `[backend]\ncommand = "true"\n\n[prices]\ninput = 3\noutput = 15\n`,
    );
    const run = await autoloop(["run", preset, "x", "--quiet"], { cwd: dir });
    expect(run.exitCode).toBe(2);
    expect(run.stderr).toContain(
      `prices.input: found 3; expected a table of one model's prices, named by its model id: [prices."gpt-5-codex"] with input = 1.25 and output = 10 (US dollars per million tokens)`,
    );
  });
});
