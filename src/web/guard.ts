// What keeps the status page's buttons from being pressed by another site: requests must name
// this machine when the daemon listens on loopback (DNS rebinding), a POST must come from the
// page's own origin, and must carry the daemon's token, which only the page knows.
import { randomBytes, timingSafeEqual } from "node:crypto";
import type { IncomingMessage } from "node:http";

export function newToken(): string {
  return randomBytes(24).toString("base64url");
}

const LOOPBACK_NAMES = /^(localhost|127(\.\d{1,3}){3}|\[::1\])$/i;

/** The Host header's name without its port, lower-cased. */
function hostName(host: string): string {
  const bracket = host.startsWith("[") ? host.indexOf("]") : -1;
  if (bracket > 0) return host.slice(0, bracket + 1).toLowerCase();
  const colon = host.lastIndexOf(":");
  return (colon >= 0 ? host.slice(0, colon) : host).toLowerCase();
}

const IPV4 = /^\d{1,3}(\.\d{1,3}){3}$/;

/**
 * Why the request is refused, or undefined. A browser led here by DNS rebinding names the
 * attacker's host: only loopback names, IP literals (rebinding needs a name) and the names
 * in `[http] hosts` are served.
 */
export function refuseHost(req: IncomingMessage, hosts: readonly string[]): string | undefined {
  const host = req.headers.host ?? "";
  const name = hostName(host);
  if (LOOPBACK_NAMES.test(name) || IPV4.test(name) || /^\[[0-9a-f:.]+\]$/.test(name))
    return undefined;
  if (hosts.some((h) => h.toLowerCase() === name)) return undefined;
  return `the Host header ${JSON.stringify(host)} is not a name of this daemon; open the page by its IP address or localhost, or add the name to [http] hosts in the config`;
}

/** Why a state-changing request is refused as cross-site, or undefined. */
export function refuseCrossSite(req: IncomingMessage): string | undefined {
  const origin = req.headers.origin;
  if (origin !== undefined) {
    if (origin === "null" || origin !== `http://${req.headers.host ?? ""}`)
      return `a request from ${JSON.stringify(origin)} cannot change anything here: only the status page itself can`;
    return undefined;
  }
  // No Origin (an older browser, or a script): a browser still says where it came from.
  const site = req.headers["sec-fetch-site"];
  if (site !== undefined && site !== "same-origin" && site !== "none")
    return `a ${site} request cannot change anything here: only the status page itself can`;
  return undefined;
}

export function tokenMatches(given: string | undefined, token: string): boolean {
  if (given === undefined) return false;
  const a = Buffer.from(given);
  const b = Buffer.from(token);
  return a.length === b.length && timingSafeEqual(a, b);
}

/**
 * Where a form sends the browser back to: a path and query of this site, else the overview.
 * Checked as parsed, since "/.//evil.example" normalizes to "//evil.example".
 */
export function safeBack(back: string | undefined, flash: string): string {
  let url: URL;
  try {
    url = new URL(back ?? "/", "http://page.invalid");
  } catch {
    url = new URL("/", "http://page.invalid");
  }
  // Anything but a path of this site (another host, "javascript:", "data:") goes to the overview.
  if (url.protocol !== "http:" || url.host !== "page.invalid" || url.pathname.startsWith("//"))
    url = new URL("/", "http://page.invalid");
  url.searchParams.set("flash", flash);
  return `${url.pathname}${url.search}`;
}
