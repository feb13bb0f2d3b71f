// Env files for agent credentials: systemd/Docker-style NAME=value lines; errors never show values.

import { chmodSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { parseEnvFile, readEnvFiles } from "../../src/util/env-file.js";

describe("parseEnvFile", () => {
  it("reads NAME=value lines, comments, export and quotes", () => {
    const text = [
      "# Claude for the nightly runs",
      "ANTHROPIC_API_KEY=sk-ant-123",
      "export CODEX_API_KEY = 'a b'",
      'GEMINI_API_KEY="x\\"y"',
      "",
      "EMPTY=",
    ].join("\n");
    expect(parseEnvFile("f.env", text)).toEqual({
      ANTHROPIC_API_KEY: "sk-ant-123",
      CODEX_API_KEY: "a b",
      GEMINI_API_KEY: 'x"y',
      EMPTY: "",
    });
  });

  it("names the file and line of a bad line without repeating its value", () => {
    expect(() => parseEnvFile("/etc/a.env", "OK=1\nsk-secret-value\nKEY='unterminated")).toThrow(
      "/etc/a.env: line 2: found a line that is not NAME=value; expected NAME=value (a # starts a comment; quotes are optional)\n" +
        "/etc/a.env: line 3: found KEY= with an unterminated quote; expected NAME=value (a # starts a comment; quotes are optional)",
    );
    try {
      parseEnvFile("/etc/a.env", "sk-secret-value");
    } catch (err) {
      expect((err as Error).message).not.toContain("sk-secret");
    }
  });

  it("refuses a missing file with the fix", () => {
    expect(() => readEnvFiles(["/nonexistent/claude.env"])).toThrow(
      "--env-file /nonexistent/claude.env: cannot read it (ENOENT); create it (mode 0600, NAME=value lines) or fix the path",
    );
  });

  it("refuses a file other users can read, with the chmod that fixes it", () => {
    const dir = mkdtempSync(join(tmpdir(), "autoloop-env-"));
    const file = join(dir, "claude.env");
    writeFileSync(file, "ANTHROPIC_API_KEY=sk-ant-secret\n", { mode: 0o644 });
    chmodSync(file, 0o644);
    try {
      expect(() => readEnvFiles([file])).toThrow(
        `--env-file ${file}: mode 0644 lets other users read the keys in it; run \`chmod 600 ${file}\` (owner only)`,
      );
      chmodSync(file, 0o600);
      expect(readEnvFiles([file])).toEqual({ ANTHROPIC_API_KEY: "sk-ant-secret" });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
