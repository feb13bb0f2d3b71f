// `[http] listen` / `--listen` parsing, with the messages people see.
import { describe, expect, it } from "vitest";
import { formatHostPort, parseListen } from "../../src/http/listen.js";
import { UserError } from "../../src/util/errors.js";

describe("parseListen", () => {
  it("reads host:port, bracketed IPv6, a bare :port (loopback) and empty (disabled)", () => {
    expect(parseListen("127.0.0.1:9464")).toEqual({ enabled: true, host: "127.0.0.1", port: 9464 });
    expect(parseListen("0.0.0.0:80")).toEqual({ enabled: true, host: "0.0.0.0", port: 80 });
    expect(parseListen("localhost:0")).toEqual({ enabled: true, host: "localhost", port: 0 });
    expect(parseListen("[::1]:9464")).toEqual({ enabled: true, host: "::1", port: 9464 });
    expect(parseListen("[::]:9464")).toEqual({ enabled: true, host: "::", port: 9464 });
    expect(parseListen(" :9464 ")).toEqual({ enabled: true, host: "127.0.0.1", port: 9464 });
    expect(parseListen("")).toEqual({ enabled: false });
    expect(parseListen("  ")).toEqual({ enabled: false });
  });

  it.each([
    ["9464", "no port"],
    ["localhost", "no port"],
    ["::1:9464", "an IPv6 address needs brackets, e.g. [::1]:9464"],
    ["127.0.0.1:", 'port "" is not a number from 0 to 65535'],
    ["127.0.0.1:65536", 'port "65536" is not a number from 0 to 65535'],
    ["127.0.0.1:http", 'port "http" is not a number from 0 to 65535'],
    ["[nope]:9464", '"nope" is not an IPv6 address'],
    ["http://127.0.0.1:9464", "not host:port"],
  ])("refuses %j: %s", (text, why) => {
    expect(() => parseListen(text, "--listen")).toThrow(UserError);
    expect(() => parseListen(text, "--listen")).toThrow(
      `--listen: found ${JSON.stringify(text)} (${why}); expected host:port such as "127.0.0.1:9464"`,
    );
  });

  it("names the config key by default", () => {
    expect(() => parseListen("nope")).toThrow(/^\[http\] listen: found "nope"/);
  });
});

describe("formatHostPort", () => {
  it("brackets IPv6 hosts", () => {
    expect(formatHostPort("::1", 80)).toBe("[::1]:80");
    expect(formatHostPort("127.0.0.1", 80)).toBe("127.0.0.1:80");
  });
});
