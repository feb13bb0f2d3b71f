// `autoloop-cron alert test|ack|silence|silences|unsilence`: channels and the operator's mutes.
import { readFileSync } from "node:fs";
import pino from "pino";
import { IncidentStore } from "../incidents/store.js";
import type { AlertRecord } from "../monitor/alert-state.js";
import { openOutbox } from "../monitor/outbox/open.js";
import { sendTestAlert } from "../monitor/outbox/test-alert.js";
import { monitorPaths } from "../monitor/paths.js";
import { SilenceStore } from "../monitor/silences.js";
import type { CronConfig } from "../scheduler/config/config.js";
import { parseDuration } from "../util/duration.js";
import { UserError } from "../util/errors.js";
import { str, table } from "./common.js";
import { configOf, parseCron } from "./cron-common.js";

const HELP = `Usage:
  autoloop-cron alert test [--channel NAME]            send a test alert; print each channel's answer
  autoloop-cron alert ack <fingerprint|incident> [--for 4h]
                                                       stop reminders of a firing alert
  autoloop-cron alert silence <matcher> --for 2h [--comment TEXT]
                                                       mute matching alerts for a while
  autoloop-cron alert silences                         active silences
  autoloop-cron alert unsilence <id>                   end a silence early

test goes through the same outbox and channels as real alerts, but in its own file,
<state_dir>/outbox-cli.jsonl, so it never writes to a running daemon's outbox. Exit 1
when a channel did not accept it (a transient failure stays in that file and is
retried by the next \`alert test\`).
ack takes an alert fingerprint (or a unique prefix, see \`status\`) or an incident
name, and acknowledges the alert's open incident too; without --for, reminders stop
until the alert resolves. A new firing of the same problem alerts again.
A matcher is schedule=<name>, kind=<kind>, run=<id> or a fingerprint prefix; join
terms with "," to require all. Silenced alerts send nothing, resolved ones included.

Examples:
  autoloop-cron alert test --channel ops-mail
  autoloop-cron alert ack run_failed:run-20261121-0200-ab12 --for 4h
  autoloop-cron alert silence schedule=nightly-fix --for 2h --comment "migrating the repo"
  autoloop-cron alert silence kind=run_stalled,schedule=docs --for 1d
`;

function duration(text: string | undefined, what: string): number | undefined {
  if (text === undefined) return undefined;
  const ms = parseDuration(text);
  if (ms === undefined || ms <= 0)
    throw new UserError(`${what} ${JSON.stringify(text)}: expected a duration such as 30m, 4h, 1d`);
  return ms;
}

/** The fingerprint an operator means: exact or unique prefix of a known alert, else an incident's. */
function fingerprintOf(config: CronConfig, query: string): string {
  const paths = monitorPaths(config.stateDir);
  let alerts: AlertRecord[] = [];
  try {
    alerts = (JSON.parse(readFileSync(paths.alerts, "utf8")) as { alerts: AlertRecord[] }).alerts;
  } catch {
    // No alert state yet: only incidents can name an alert.
  }
  const fps = alerts.map((a) => a.fingerprint);
  if (fps.includes(query)) return query;
  const prefixed = fps.filter((fp) => fp.startsWith(query));
  if (prefixed.length === 1) return prefixed[0]!;
  if (prefixed.length > 1)
    throw new UserError(`"${query}" matches several alerts: ${prefixed.join(", ")}`);
  const incident = new IncidentStore(paths.incidents).find(query);
  if (incident.fingerprint === null)
    throw new UserError(`incident ${incident.slug} was not raised by an alert; nothing to ack`);
  return incident.fingerprint;
}

async function testCommand(config: CronConfig, channel: string | undefined): Promise<number> {
  const logger = pino({ level: "warn" }, pino.destination(2));
  const outbox = openOutbox(config, logger, { path: monitorPaths(config.stateDir).cliOutbox });
  try {
    const outcomes = await sendTestAlert(outbox, channel, { timezone: config.defaults.timezone });
    const rows = outcomes.map((o) => {
      const answer = o.kind === "delivered" ? o.response : o.error;
      return [o.channel, o.kind, answer];
    });
    process.stdout.write(`${table([["CHANNEL", "RESULT", "ANSWER"], ...rows])}\n`);
    return outcomes.every((o) => o.kind === "delivered") ? 0 : 1;
  } finally {
    await outbox.close();
  }
}

export async function alertCommand(argv: string[]): Promise<number> {
  const p = parseCron(argv, {
    name: "alert",
    help: HELP,
    options: { channel: { type: "string" }, for: { type: "string" }, comment: { type: "string" } },
  });
  if (p === undefined) return 0;
  const config = configOf(p);
  const store = new SilenceStore(monitorPaths(config.stateDir).silences);
  const [action, target] = p.positionals;
  const now = new Date();
  const say = (line: string) => process.stdout.write(`${line}\n`);
  switch (action) {
    case "test":
      return testCommand(config, str(p, "channel"));
    case "ack": {
      if (target === undefined)
        throw new UserError("usage: autoloop-cron alert ack <fingerprint|incident> [--for 4h]");
      const fingerprint = fingerprintOf(config, target);
      const ms = duration(str(p, "for"), "--for");
      const ack = store.ack(
        fingerprint,
        now,
        ms === undefined ? undefined : new Date(now.getTime() + ms),
      );
      say(`acked ${fingerprint}${ack.until ? ` until ${ack.until}` : " until it resolves"}`);
      // Someone is on it: the incident says so too (and `status` stops counting it).
      const incidents = new IncidentStore(monitorPaths(config.stateDir).incidents);
      const incident = incidents.findByFingerprint(fingerprint);
      if (incident?.status === "open") {
        incidents.acknowledge(
          incident.slug,
          `Alert acked${ack.until ? ` until ${ack.until}` : ""}.`,
        );
        say(`acknowledged incident ${incident.slug}`);
      }
      return 0;
    }
    case "silence": {
      if (target === undefined)
        throw new UserError("usage: autoloop-cron alert silence <matcher> --for 2h");
      const ms = duration(str(p, "for"), "--for");
      if (ms === undefined) throw new UserError("alert silence needs --for, e.g. --for 2h");
      const s = store.silence(target, new Date(now.getTime() + ms), now, str(p, "comment"));
      say(`silence ${s.id}: ${s.matcher} until ${s.until}`);
      return 0;
    }
    case "silences": {
      const active = store.read().silences.filter((s) => Date.parse(s.until) > now.getTime());
      if (active.length === 0) say("No active silences.");
      else
        say(
          table([
            ["ID", "MATCHER", "UNTIL", "COMMENT"],
            ...active.map((s) => [s.id, s.matcher, s.until, s.comment ?? ""]),
          ]),
        );
      return 0;
    }
    case "unsilence": {
      if (target === undefined) throw new UserError("usage: autoloop-cron alert unsilence <id>");
      if (!store.unsilence(target, now)) throw new UserError(`no silence with id ${target}`, 1);
      say(`silence ${target} ended`);
      return 0;
    }
    default:
      throw new UserError(
        `autoloop-cron alert: ${action === undefined ? "missing action" : `unknown action ${JSON.stringify(action)}`}; use test, ack, silence, silences or unsilence`,
      );
  }
}
