// `autoloop-cron digest`: what the runs did over a period, as the `[[digest]]` sends it, to a
// terminal or as JSON; it reads files only, with or without a daemon.
import { digestText } from "../monitor/alerts/digest-render.js";
import { adHocDigest, readDigest } from "../monitor/digest-read.js";
import { registerScheduleSecrets } from "../scheduler/schedules/env-file-secrets.js";
import { parseDuration } from "../util/duration.js";
import { UserError } from "../util/errors.js";
import { flag, str } from "./common.js";
import { configOf, parseCron, printJson } from "./cron-common.js";

const HELP = `Usage: autoloop-cron digest [--since 24h] [--name DIGEST] [--json] [--config FILE]

Prints what the night did: per schedule the runs that ended in the period with their
outcome, duration and cost (and pull request, when a run delivered one), then the
questions runs wait on, the open incidents and each schedule's spend against its
budget. The same summary a [[digest]] in autoloop-cron.toml sends to its channels at
its cron.

Options:
  --since DURATION  the period, back from now (default 24h; 90m, 7d ...)
  --name DIGEST     only the schedules of that [[digest]], times in its zone
                    (default: every schedule, in [defaults] timezone)
  --json            the report as JSON (the digest webhook's data.digest)

Examples:
  autoloop-cron digest
  autoloop-cron digest --since 7d --name morning
  autoloop-cron digest --json | jq '.schedules[] | {schedule, counts, costUsd}'
`;

export async function digestCommand(argv: string[]): Promise<number> {
  const p = parseCron(argv, {
    name: "digest",
    help: HELP,
    options: { since: { type: "string" }, name: { type: "string" }, json: { type: "boolean" } },
  });
  if (p === undefined) return 0;
  if (p.positionals.length > 0)
    throw new UserError(`autoloop-cron digest: unexpected ${JSON.stringify(p.positionals[0])}`);
  const sinceText = str(p, "since") ?? "24h";
  const sinceMs = parseDuration(sinceText);
  if (sinceMs === undefined || sinceMs <= 0)
    throw new UserError(
      `autoloop-cron digest: --since: found ${JSON.stringify(sinceText)}; expected a duration such as 24h, 90m or 7d`,
    );
  const config = configOf(p);
  const name = str(p, "name");
  const digest =
    name === undefined ? adHocDigest(config) : config.digests.find((d) => d.name === name);
  if (digest === undefined) {
    const names = config.digests.map((d) => d.name).join(", ") || "none configured";
    throw new UserError(
      `autoloop-cron digest: --name: no [[digest]] named ${JSON.stringify(name)} in ${config.file ?? "the config"}; digests: ${names}`,
    );
  }
  // The report quotes runs (ids, stop reasons, questions): the agents' keys are hidden again.
  registerScheduleSecrets(config);
  const now = Date.now();
  const report = readDigest(config, digest, now - sinceMs, now);
  if (flag(p, "json")) printJson(report);
  else process.stdout.write(digestText(report));
  return 0;
}
