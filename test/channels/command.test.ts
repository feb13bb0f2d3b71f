import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { createCommandChannel } from "../../src/monitor/channels/command.js";
import type { OutboxDelivery } from "../../src/monitor/channels/delivery.js";
import { removeTempDirs, sampleMessage, tempDir } from "./helpers.js";

afterEach(removeTempDirs);

const delivery: OutboxDelivery = {
  entryId: "e1",
  messageId: "msg-1",
  channel: "pager",
  message: sampleMessage(),
  enqueuedAt: "2026-11-21T01:20:00.000Z",
  attempt: 1,
};

/** A real node process running `script`, as the configured argv would. */
function nodeChannel(script: string, timeoutMs?: number) {
  return createCommandChannel(
    { name: "pager", type: "command", command: [process.execPath, "-e", script] },
    timeoutMs === undefined ? {} : { timeoutMs },
  );
}

describe("command channel (real child processes)", () => {
  it("passes the alert JSON on stdin; exit 0 is delivered with the output tail", async () => {
    const out = join(tempDir(), "stdin.json");
    const script = `let s="";process.stdin.on("data",d=>s+=d).on("end",()=>{require("fs").writeFileSync(${JSON.stringify(out)},s);console.log("paged oncall")})`;
    const result = await nodeChannel(script).send(delivery);
    expect(result).toEqual({ kind: "delivered", response: "exit 0: paged oncall" });
    const payload = JSON.parse(readFileSync(out, "utf8"));
    expect(payload).toMatchObject({
      type: "alert.firing",
      data: { messageId: "msg-1", runId: "run-20261121-0200-ab12" },
    });
  });

  it("retries a failing exit code and reports stderr", async () => {
    const result = await nodeChannel('console.error("pager api down");process.exit(1)').send(
      delivery,
    );
    expect(result).toEqual({ kind: "retry", error: "exit 1: pager api down" });
  });

  it("gives up on sysexits usage and config errors (64-78)", async () => {
    expect(await nodeChannel("process.exit(64)").send(delivery)).toEqual({
      kind: "permanent",
      error: "exit 64",
    });
    expect(await nodeChannel("process.exit(78)").send(delivery)).toEqual({
      kind: "permanent",
      error: "exit 78",
    });
  });

  it("gives up on a program that does not exist", async () => {
    const channel = createCommandChannel({
      name: "pager",
      type: "command",
      command: ["/nonexistent/page-oncall"],
    });
    expect(await channel.send(delivery)).toMatchObject({
      kind: "permanent",
      error: expect.stringContaining("ENOENT"),
    });
  });

  it("retries a program that runs past the timeout", async () => {
    const result = await nodeChannel("setTimeout(()=>{},10000)", 300).send(delivery);
    expect(result).toEqual({ kind: "retry", error: "timed out after 300 ms" });
  });
});
