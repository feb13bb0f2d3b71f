// The status page on the daemon's HTTP server: `/`, `/schedules/<name>` (and its badge),
// `/runs/<id>`, `/incidents/<slug>`, the live event stream and the operator's buttons (pause, resume, fire, stop, ack, resolve),
// which go through the same code paths as the CLI.
import { randomBytes } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import { readStatus } from "../monitor/status.js";
import { incidentStore } from "../operator/incident-actions.js";
import { scheduleOverview } from "../operator/overview.js";
import { runDetail, runJournal } from "../operator/run-detail.js";
import { spendTrend } from "../scheduler/budget/spend-trend.js";
import { isScheduledRunId } from "../scheduler/ledger/scheduled-run-id.js";
import { killSwitchOn, readPauseState } from "../scheduler/schedules/pause-state.js";
import { LIVE_SCRIPT, STYLESHEET } from "./assets.js";
import { badgeSvg } from "./charts/badge.js";
import { type DashboardData, dashboardPage } from "./dashboard-page.js";
import { incidentPage, notFoundPage, runPage } from "./detail-pages.js";
import { refuseCrossSite, refuseHost, safeBack, tokenMatches } from "./guard.js";
import type { PageContext } from "./layout.js";
import type { LiveUpdates } from "./live.js";
import { type ActionContext, type ActionResult, runAction } from "./page-actions.js";
import { schedulePage, TREND_RUNS } from "./schedule-page.js";
import { scheduleBadgeState, schedulePageData } from "./schedule-views.js";

export interface StatusPageOptions extends ActionContext {
  live: LiveUpdates;
  token: string;
  /** The buttons work ([http] actions). */
  actions: boolean;
  /** Host names the page answers to besides loopback names and IP literals ([http] hosts). */
  hosts: readonly string[];
}

/** Handles the request when it is the status page's; false for other paths (/healthz...). */
export type PageHandler = (req: IncomingMessage, res: ServerResponse, url: URL) => Promise<boolean>;

const SECURITY_HEADERS = {
  "Content-Security-Policy":
    "default-src 'none'; style-src 'self'; script-src 'self'; connect-src 'self'; img-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
  "X-Content-Type-Options": "nosniff",
  "Referrer-Policy": "same-origin",
  "X-Frame-Options": "DENY",
  "Cache-Control": "no-store",
};

/** A badge may be cached a minute: a README shows it through an image proxy. */
const BADGE_HEADERS = { "Cache-Control": "public, max-age=60" };

function send(
  req: IncomingMessage,
  res: ServerResponse,
  status: number,
  type: string,
  body: string,
  headers: Record<string, string> = {},
) {
  res.writeHead(status, {
    ...SECURITY_HEADERS,
    ...headers,
    "Content-Type": `${type}; charset=utf-8`,
    "Content-Length": Buffer.byteLength(body),
  });
  res.end(req.method === "HEAD" ? undefined : body);
}

/** Messages shown once after a button's redirect; kept a few minutes, a hundred at most. */
class Flashes {
  private readonly kept = new Map<string, { result: ActionResult; at: number }>();
  put(result: ActionResult): string {
    const id = randomBytes(8).toString("hex");
    this.kept.set(id, { result, at: Date.now() });
    for (const [key, f] of this.kept)
      if (this.kept.size > 100 || Date.now() - f.at > 300_000) this.kept.delete(key);
    return id;
  }
  take(id: string | null): ActionResult | undefined {
    if (id === null) return undefined;
    const f = this.kept.get(id);
    this.kept.delete(id);
    return f?.result;
  }
}

const MAX_BODY = 16_384;
/** The download's name under a run's path. */
const JOURNAL_FILE = "/journal.jsonl";
/** Records `?raw=1` shows (each cut short): the download has all of them. */
const RAW_JOURNAL_LINES = 500;

/** A path segment decoded, or "" when its percent-encoding is malformed (a 404 follows). */
function decoded(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return "";
  }
}

function readForm(req: IncomingMessage): Promise<URLSearchParams> {
  return new Promise((resolve, reject) => {
    let size = 0;
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY) {
        reject(new Error("form too large"));
        req.destroy();
      } else chunks.push(chunk);
    });
    req.on("end", () => resolve(new URLSearchParams(Buffer.concat(chunks).toString("utf8"))));
    req.on("error", reject);
  });
}

export function createStatusPage(o: StatusPageOptions): PageHandler {
  const page = new StatusPage(o);
  return (req, res, url) => page.serve(req, res, url);
}

/** The page's handler: its flash messages between a POST and the page it redirects to. */
class StatusPage {
  private readonly flashes = new Flashes();
  private readonly env: NodeJS.ProcessEnv;

  constructor(private readonly o: StatusPageOptions) {
    this.env = o.env ?? process.env;
  }

  async serve(req: IncomingMessage, res: ServerResponse, url: URL): Promise<boolean> {
    const isPage =
      ["/", "/index.html", "/events", "/favicon.ico"].includes(url.pathname) ||
      /^\/(assets|runs|incidents|schedules)\//.test(url.pathname);
    if (!isPage) return false;
    const badHost = refuseHost(req, this.o.hosts);
    if (badHost !== undefined) {
      send(req, res, 421, "text/plain", `${badHost}\n`);
      return true;
    }
    if (req.method === "POST") {
      await this.post(req, res, url);
      return true;
    }
    if (req.method !== "GET" && req.method !== "HEAD") {
      res.setHeader("Allow", "GET, HEAD, POST");
      send(req, res, 405, "text/plain", "method not allowed\n");
      return true;
    }
    return this.get(req, res, url);
  }

  private context(url: URL): PageContext {
    const flash = this.flashes.take(url.searchParams.get("flash"));
    url.searchParams.delete("flash");
    return {
      now: Date.now(),
      token: this.o.token,
      actions: this.o.actions,
      path: `${url.pathname}${url.search}`,
      ...(flash?.ok === true && { notice: flash.message }),
      ...(flash?.ok === false && { error: flash.message }),
    };
  }

  private dashboard(url: URL, ctx: PageContext): string {
    const { daemon, config } = this.o;
    const status = readStatus(config, new Date(ctx.now), {
      invalid: daemon.invalidProblems,
      schedules: daemon.schedules,
      ledger: daemon.ledger,
    });
    const pause = readPauseState(config.stateDir);
    const filter = url.searchParams.get("q") ?? "";
    const killSwitch = killSwitchOn(this.env);
    const data: DashboardData = {
      overview: scheduleOverview(
        {
          schedules: daemon.schedules,
          ledger: daemon.ledger,
          pause,
          killSwitch,
          nextFire: (s) => daemon.nextFire(s.name),
          recent: TREND_RUNS,
        },
        { filter },
      ),
      filter,
      firing: status.firing,
      incidents: status.incidents,
      running: [...daemon.active.values()].map((r) => {
        const startedAt = daemon.ledger.replay(r.runId)?.summary.startedAt;
        return { runId: r.runId, schedule: r.schedule, ...(startedAt && { startedAt }) };
      }),
      outbox: { backlog: status.outbox.backlog, deadLetters: status.outbox.deadLetters.length },
      invalidFiles: status.invalidFiles,
      allPaused: pause.all,
      killSwitch,
      spend: status.spend,
      spendTrend: spendTrend(daemon.schedules, daemon.ledger, ctx.now),
      windows: status.windows,
    };
    return dashboardPage(data, ctx);
  }

  private get(req: IncomingMessage, res: ServerResponse, url: URL): boolean {
    const path = url.pathname;
    if (path === "/favicon.ico") {
      res.writeHead(204, SECURITY_HEADERS).end();
      return true;
    }
    if (path === "/assets/status.css") send(req, res, 200, "text/css", STYLESHEET);
    else if (path === "/assets/live.js") send(req, res, 200, "text/javascript", LIVE_SCRIPT);
    else if (path === "/events") {
      if (req.method === "HEAD") send(req, res, 200, "text/event-stream", "");
      else this.o.live.subscribe(res);
    } else if (path === "/" || path === "/index.html")
      send(req, res, 200, "text/html", this.dashboard(url, this.context(url)));
    else if (path.startsWith("/schedules/")) this.schedule(req, res, url);
    else if (path.startsWith("/runs/")) this.run(req, res, url);
    else if (path.startsWith("/incidents/")) this.incident(req, res, url);
    else return false;
    return true;
  }

  /** `/schedules/<name>` and `/schedules/<name>/badge.svg`. */
  private schedule(req: IncomingMessage, res: ServerResponse, url: URL): void {
    const rest = url.pathname.slice("/schedules/".length);
    const ctx = this.context(url);
    if (rest.endsWith("/badge.svg")) {
      const name = decoded(rest.slice(0, -"/badge.svg".length));
      const state = scheduleBadgeState(name, this.o);
      // A name not in force is not echoed back: the badge says only that it was not found.
      const [status, label] = state === "not found" ? [404, "schedule"] : [200, name];
      send(req, res, status, "image/svg+xml", badgeSvg(label, state), BADGE_HEADERS);
      return;
    }
    const name = decoded(rest);
    const origin = `http://${req.headers.host ?? "127.0.0.1"}`;
    const data = schedulePageData(name, this.o, ctx.now, origin);
    if (data === undefined)
      send(req, res, 404, "text/html", notFoundPage(`No schedule ${name} in force.`, ctx));
    else send(req, res, 200, "text/html", schedulePage(data, ctx));
  }

  private run(req: IncomingMessage, res: ServerResponse, url: URL): void {
    const rest = url.pathname.slice("/runs/".length);
    if (rest.endsWith(JOURNAL_FILE)) {
      this.journal(req, res, url, rest);
      return;
    }
    const runId = decoded(rest);
    const ctx = this.context(url);
    const raw = url.searchParams.get("raw") === "1";
    const detail = isScheduledRunId(runId)
      ? runDetail(this.o.daemon.ledger, runId, { journalLines: raw ? RAW_JOURNAL_LINES : 0 })
      : undefined;
    if (detail === undefined)
      send(req, res, 404, "text/html", notFoundPage(`No run ${runId} in the ledger.`, ctx));
    else send(req, res, 200, "text/html", runPage(detail, ctx, raw));
  }

  /** `/runs/<id>/journal.jsonl`: the run's records as a file to save. */
  private journal(req: IncomingMessage, res: ServerResponse, url: URL, rest: string): void {
    const runId = decoded(rest.slice(0, -JOURNAL_FILE.length));
    let journal: ReturnType<typeof runJournal>;
    try {
      journal = isScheduledRunId(runId) ? runJournal(this.o.daemon.ledger, runId) : undefined;
    } catch (err) {
      const why = (err as Error).message;
      send(req, res, 409, "text/plain", `the journal of ${runId} cannot be read: ${why}\n`);
      return;
    }
    if (journal === undefined) {
      const page = notFoundPage(`No journal for run ${runId}.`, this.context(url));
      send(req, res, 404, "text/html", page);
      return;
    }
    res.setHeader("Content-Disposition", `attachment; filename="${runId}.jsonl"`);
    if (journal.truncated)
      res.setHeader("X-Autoloop-Truncated", "the run goes on past what is read");
    send(req, res, 200, "application/x-ndjson", journal.text);
  }

  private incident(req: IncomingMessage, res: ServerResponse, url: URL): void {
    const slug = decoded(url.pathname.slice("/incidents/".length));
    const ctx = this.context(url);
    let page: string | undefined;
    try {
      if (/^[\w.-]+$/.test(slug))
        page = incidentPage(incidentStore(this.o.config.stateDir).find(slug), ctx);
    } catch {
      page = undefined;
    }
    if (page === undefined)
      send(req, res, 404, "text/html", notFoundPage(`No incident ${slug}.`, ctx));
    else send(req, res, 200, "text/html", page);
  }

  private async post(req: IncomingMessage, res: ServerResponse, url: URL): Promise<void> {
    const wantsJson = (req.headers.accept ?? "").includes("application/json");
    const refuse = (status: number, message: string) =>
      wantsJson
        ? send(
            req,
            res,
            status,
            "application/json",
            `${JSON.stringify({ ok: false, error: message })}\n`,
          )
        : send(req, res, status, "text/plain", `${message}\n`);
    if (!this.o.actions)
      return refuse(
        403,
        "the status page's actions are off ([http] actions = false in the config)",
      );
    const crossSite = refuseCrossSite(req);
    if (crossSite !== undefined) return refuse(403, crossSite);
    let form: URLSearchParams;
    try {
      form = await readForm(req);
    } catch {
      return refuse(413, `the form is larger than ${MAX_BODY} bytes`);
    }
    const given = form.get("token") ?? (req.headers["x-autoloop-token"] as string | undefined);
    if (!tokenMatches(given ?? undefined, this.o.token))
      return refuse(
        403,
        "the form's token is missing or out of date: reload the page and try again",
      );
    const result = await runAction(url.pathname, form.get("note") ?? "", this.o);
    if (result === undefined) return refuse(404, `no action at ${url.pathname}`);
    this.o.live.publish("operator", { action: url.pathname });
    if (wantsJson) {
      send(req, res, result.ok ? 200 : 409, "application/json", `${JSON.stringify(result)}\n`);
      return;
    }
    const back = safeBack(form.get("back") ?? undefined, this.flashes.put(result));
    res.writeHead(303, {
      ...SECURITY_HEADERS,
      Location: back,
      "Content-Length": 0,
    });
    res.end();
  }
}
