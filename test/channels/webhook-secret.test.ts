// Webhook secrets must be Standard Webhooks secrets (whsec_ + base64 of 24-64 bytes): a
// malformed one is refused at start, saying how to make one, never repeating it.
import { randomBytes } from "node:crypto";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { execa } from "execa";
import { afterEach, describe, expect, it } from "vitest";
import { webhookKey } from "../../src/util/standard-webhooks.js";
import { AUTOLOOP_CRON, cleanEnv, cleanupTempDirs, tempDir } from "../helpers/cli.js";

afterEach(cleanupTempDirs);

describe("webhookKey", () => {
  it("takes whsec_ and the base64 of 24 to 64 bytes", () => {
    const key = randomBytes(32);
    expect(webhookKey(`whsec_${key.toString("base64")}`, "hook")).toEqual(key);
  });

  it.each([
    ["change-me-to-a-long-random-string", "a value without the whsec_ prefix"],
    ["whsec_change-me", "whsec_ and text that is not base64"],
    ["whsec_c2VjcmV0", "a key of 6 bytes"],
    [`whsec_${randomBytes(80).toString("base64")}`, "a key of 80 bytes"],
  ])("refuses %s", (secret, found) => {
    expect(() => webhookKey(secret, "channel hook: secret_env ALERT_SECRET")).toThrow(
      `channel hook: secret_env ALERT_SECRET: not a Standard Webhooks secret: found ${found}; expected whsec_ followed by the base64 of 24 to 64 random bytes; generate one with \`echo "whsec_$(openssl rand -base64 32)"\``,
    );
  });

  it("never repeats the secret in the message", () => {
    try {
      webhookKey("whsec_hunter2-hunter2", "hook");
    } catch (err) {
      expect(String(err)).not.toContain("hunter2");
    }
  });
});

describe("autoloop-cron start with a malformed webhook secret", () => {
  it("refuses to start (exit 2) and says how to generate one", async () => {
    const dir = tempDir("autoloop-whsec-");
    writeFileSync(
      join(dir, "autoloop-cron.toml"),
      '[http]\nlisten = ""\n[[channel]]\nname = "hook"\ntype = "webhook"\nurl = "http://127.0.0.1:9/x"\nsecret_env = "ALERT_SECRET"\n',
    );
    const start = await execa(process.execPath, [AUTOLOOP_CRON, "start"], {
      cwd: dir,
      env: cleanEnv({ ALERT_SECRET: "change-me-to-a-long-random-string" }),
      extendEnv: false,
      reject: false,
      timeout: 20_000,
    });
    expect(start.exitCode).toBe(2);
    expect(start.stderr + start.stdout).toContain("not a Standard Webhooks secret");
    expect(start.stderr + start.stdout).toContain("openssl rand -base64 32");
    expect(start.stderr + start.stdout).not.toContain("change-me-to-a-long-random-string");
  });
});
