import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { Redactor, resolveSecret, SecretError } from "../../src/util/secrets.js";

let dir: string | undefined;
afterEach(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
  dir = undefined;
});

describe("resolveSecret", () => {
  it("reads an environment variable and registers it for redaction", () => {
    const redactor = new Redactor();
    const value = resolveSecret({ kind: "env", name: "HOOK_URL" }, 'channel "hook": url', {
      env: { HOOK_URL: "https://hooks.example/T0/abcdef" },
      redactor,
    });
    expect(value).toBe("https://hooks.example/T0/abcdef");
    expect(redactor.redact("POST https://hooks.example/T0/abcdef failed")).toBe(
      "POST [REDACTED] failed",
    );
  });

  it("reads a file and drops the trailing newline", () => {
    dir = mkdtempSync(join(tmpdir(), "secrets-"));
    const file = join(dir, "smtp");
    writeFileSync(file, "smtp://u:p4ss@mail:25\n");
    expect(resolveSecret({ kind: "file", path: file }, "x", { redactor: new Redactor() })).toBe(
      "smtp://u:p4ss@mail:25",
    );
  });

  it("names the channel and the variable, never a value, when the variable is missing", () => {
    const run = () =>
      resolveSecret({ kind: "env", name: "ALERT_WEBHOOK_SECRET" }, 'channel "hook": secret', {
        env: {},
      });
    expect(run).toThrow(SecretError);
    expect(run).toThrow(
      'channel "hook": secret: environment variable ALERT_WEBHOOK_SECRET is not set or is empty',
    );
  });

  it("names the file when it cannot be read or is empty", () => {
    expect(() =>
      resolveSecret({ kind: "file", path: "/nonexistent/secret" }, 'channel "mail": smtp_url'),
    ).toThrow('channel "mail": smtp_url: cannot read secret file /nonexistent/secret (ENOENT)');
    dir = mkdtempSync(join(tmpdir(), "secrets-"));
    writeFileSync(join(dir, "empty"), "\n");
    expect(() => resolveSecret({ kind: "file", path: join(dir!, "empty") }, "x")).toThrow(
      "is empty",
    );
  });

  it("says what to set when nothing is configured", () => {
    expect(() => resolveSecret(undefined, 'channel "x": url')).toThrow(
      'channel "x": url: not configured; set the *_env or *_file key',
    );
  });
});

describe("Redactor", () => {
  it("hides URL passwords even when they were never registered", () => {
    const r = new Redactor();
    expect(r.redact("connect smtps://alerts:hunter2@mail.example:465 refused")).toBe(
      "connect smtps://alerts:[REDACTED]@mail.example:465 refused",
    );
    expect(r.redact("see http://host:8080/path")).toBe("see http://host:8080/path");
  });

  it("replaces every occurrence, longest secret first", () => {
    const r = new Redactor();
    r.add("abcd");
    r.add("abcdefgh");
    expect(r.redact("x abcdefgh y abcd z abcd")).toBe("x [REDACTED] y [REDACTED] z [REDACTED]");
  });

  it("hides the URL-encoded form and treats regex characters literally", () => {
    const r = new Redactor();
    r.add("p@ss+w.rd");
    expect(r.redact("p@ss+w.rd and p%40ss%2Bw.rd and pXss+wxrd")).toBe(
      "[REDACTED] and [REDACTED] and pXss+wxrd",
    );
  });

  it("ignores values too short to be told apart from words", () => {
    const r = new Redactor();
    r.add("ab");
    expect(r.redact("about ab")).toBe("about ab");
  });
});
