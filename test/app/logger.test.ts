// The daemon's logger: JSON lines by default, pino-pretty's text when asked (a terminal).
import { PassThrough } from "node:stream";
import { stripVTControlCharacters } from "node:util";
import { describe, expect, it } from "vitest";
import { createLogger } from "../../src/app/logger.js";

/** What the logger writes for one line, once it reaches the stream. */
async function written(pretty: boolean): Promise<string> {
  const out = new PassThrough();
  const chunks: string[] = [];
  out.on("data", (c) => chunks.push(String(c)));
  const log = createLogger("info", { pretty, destination: out });
  log.info({ schedule: "nightly" }, "slot fired");
  for (let i = 0; i < 100 && !chunks.join("").includes("\n"); i++)
    await new Promise((r) => setTimeout(r, 10));
  return chunks.join("");
}

describe("createLogger", () => {
  it("writes a JSON line, and pino-pretty's text when pretty", async () => {
    const json = JSON.parse(await written(false));
    expect(json).toMatchObject({ level: 30, msg: "slot fired", schedule: "nightly" });
    const text = stripVTControlCharacters(await written(true));
    expect(text).toContain("INFO");
    expect(text).toContain("slot fired");
    expect(text).toContain('schedule: "nightly"');
    expect(() => JSON.parse(text)).toThrow();
  });
});
