// `autoloop-cron incident list|show|log|ack|resolve`: the monitor's incidents for operators.
import { readFileSync } from "node:fs";
import {
  acknowledgeIncident,
  incidentStore,
  resolveIncident,
} from "../operator/incident-actions.js";
import { UserError } from "../util/errors.js";
import { printable } from "../util/terminal-text.js";
import { flag, table } from "./common.js";
import { configOf, parseCron, printJson } from "./cron-common.js";

const HELP = `Usage:
  autoloop-cron incident list [--all] [--json]     open and acknowledged incidents (--all: resolved too)
  autoloop-cron incident show <name> [--json]      one incident: fields and changelog
  autoloop-cron incident log <name> <text...>      add a note to its changelog
  autoloop-cron incident ack <name> [text...]      you are on it: status acknowledged; reminders stop
  autoloop-cron incident resolve <name> [text...]  done: status resolved; reminders stop

Incidents are Markdown files under <state_dir>/incidents/, one per alert episode,
opened by the monitor when an alert fires and resolved when its condition clears.
<name> is the file's slug, a unique prefix of it, or a unique part of it.
ack and resolve also ack the alert behind the incident, so reminders stop; a new
occurrence of the problem (a new firing) is news again and alerts as usual.

Examples:
  autoloop-cron incident list
  autoloop-cron incident show gate-stuck-nightly
  autoloop-cron incident ack gate-stuck-nightly looking at the flaky test
  autoloop-cron incident resolve gate-stuck-nightly removed the obsolete task
`;

function need(value: string | undefined, usage: string): string {
  if (value === undefined || value.trim() === "")
    throw new UserError(`missing argument; usage: autoloop-cron incident ${usage}`);
  return value;
}

export async function incidentCommand(argv: string[]): Promise<number> {
  const p = parseCron(argv, {
    name: "incident",
    help: HELP,
    options: { all: { type: "boolean" }, json: { type: "boolean" } },
  });
  if (p === undefined) return 0;
  const config = configOf(p);
  const store = incidentStore(config.stateDir);
  const [action, name, ...words] = p.positionals;
  const text = words.join(" ");
  const say = (line: string) => process.stdout.write(`${line}\n`);
  switch (action) {
    case "list": {
      const all = store.list(flag(p, "all") ? {} : { status: ["open", "acknowledged"] });
      all.sort((a, b) => b.updatedAt.localeCompare(a.updatedAt));
      if (flag(p, "json")) printJson(all.map(({ body: _, ...rest }) => rest));
      else if (all.length === 0) say(flag(p, "all") ? "No incidents." : "No open incidents.");
      else
        say(
          table([
            ["INCIDENT", "PRIORITY", "STATUS", "UPDATED", "NAME"],
            // Names come from journals (run ids): control characters are shown escaped.
            ...all.map((i) => [i.slug, i.priority, i.status, i.updatedAt, printable(i.name)]),
          ]),
        );
      return 0;
    }
    case "show": {
      const incident = store.find(need(name, "show <name>"));
      if (flag(p, "json")) printJson(incident);
      // The file quotes runs (questions, summaries): shown, never acted on by the terminal.
      else
        process.stdout.write(
          printable(readFileSync(incident.file, "utf8"), { multiline: true, maxChars: Infinity }),
        );
      return 0;
    }
    case "log": {
      const incident = store.log(
        need(name, "log <name> <text...>"),
        need(text, "log <name> <text...>"),
      );
      say(`logged to ${incident.slug}`);
      return 0;
    }
    case "ack":
      say(acknowledgeIncident(config.stateDir, need(name, "ack <name> [text...]"), text).message);
      return 0;
    case "resolve":
      say(resolveIncident(config.stateDir, need(name, "resolve <name> [text...]"), text).message);
      return 0;
    default:
      throw new UserError(
        action === undefined
          ? "autoloop-cron incident: missing action (list, show, log, ack, resolve); see --help"
          : `autoloop-cron incident: unknown action ${JSON.stringify(action)}; use list, show, log, ack or resolve`,
      );
  }
}
