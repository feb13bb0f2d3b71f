// Parses a listen address as written in `[http] listen` or `--listen`: "host:port", or "" for off.
import { UserError } from "../util/errors.js";

export type ListenAddress = { enabled: false } | { enabled: true; host: string; port: number };

/** Host used when the text gives only ":port": loopback, so metrics are never exposed by accident. */
export const DEFAULT_HOST = "127.0.0.1";

const EXPECTED =
  'host:port such as "127.0.0.1:9464", "0.0.0.0:9464" (all interfaces), "[::1]:9464" or ":9464" (loopback), or "" to disable';

/**
 * "127.0.0.1:9464", "[::1]:9464", "localhost:9464", ":9464" (loopback) or "" (disabled).
 * Port 0 means "any free port" (tests). `source` names where the text came from, for errors.
 */
export function parseListen(text: string, source = "[http] listen"): ListenAddress {
  const src = text.trim();
  if (src === "") return { enabled: false };
  const fail = (why: string): never => {
    throw new UserError(`${source}: found ${JSON.stringify(text)} (${why}); expected ${EXPECTED}`);
  };
  const m = /^(?:\[([^\]]*)\]|([^:[\]\s]*)):([^:]*)$/.exec(src);
  if (m === null) {
    // "::1:9464" cannot be split safely: the port could be the last group of the address.
    if (/^[0-9a-fA-F:]+$/.test(src) && src.split(":").length > 2) {
      fail("an IPv6 address needs brackets, e.g. [::1]:9464");
    }
    fail(src.includes(":") ? "not host:port" : "no port");
  }
  const [, v6, name, portText] = m!;
  if (v6 !== undefined && !/^[0-9a-fA-F:.]+(%[\w.-]+)?$/.test(v6)) {
    fail(`${JSON.stringify(v6)} is not an IPv6 address`);
  }
  if (!/^\d{1,5}$/.test(portText!) || Number(portText) > 65535) {
    fail(`port ${JSON.stringify(portText)} is not a number from 0 to 65535`);
  }
  const host = v6 ?? (name === "" ? DEFAULT_HOST : name!);
  return { enabled: true, host, port: Number(portText) };
}

/** "host:port" with IPv6 hosts bracketed, for messages and URLs. */
export function formatHostPort(host: string, port: number): string {
  return host.includes(":") ? `[${host}]:${port}` : `${host}:${port}`;
}
