// `autoloop-cron export kubernetes|systemd`: argument parsing and output only; the exports
// themselves are pure functions in src/export.
import type { CronConfig } from "../scheduler/config/config.js";
import { readConfigFiles, readPresetFiles } from "../scheduler/export/config-files.js";
import { kubernetesExport } from "../scheduler/export/kubernetes.js";
import { isDnsLabel } from "../scheduler/export/kubernetes-names.js";
import { STORAGE_QUANTITY } from "../scheduler/export/kubernetes-objects.js";
import { refusalError, selectSchedules } from "../scheduler/export/selection.js";
import { systemdExport } from "../scheduler/export/systemd.js";
import {
  type ExportResult,
  joinWithFileMarkers,
  joinYamlDocuments,
  writeFiles,
} from "../scheduler/export/write-out.js";
import { UserError } from "../util/errors.js";
import { autoloopCronEntry } from "../util/package-root.js";
import { flag, parse, str } from "./common.js";
import { packageVersion } from "./version.js";

const COMMAND = "autoloop-cron export";

export const EXPORT_HELP = `Usage:
  autoloop-cron export kubernetes [--image IMG] [--namespace NS] [--storage SIZE]
                                  [--access-mode ReadWriteMany|ReadWriteOnce] [--replicas N]
                                  [--out DIR]
  autoloop-cron export systemd [--user] [--out DIR]

Turns every enabled schedule into units of another scheduler, which then fires
\`autoloop-cron fire --foreground NAME\` at the schedule's times.

  kubernetes   a CronJob per schedule, the monitor's Deployment, a PersistentVolumeClaim
               and a ConfigMap with the config and schedule files (multi-document YAML);
               with [ha.kubernetes] in the config, the ServiceAccount, Role and RoleBinding
               that let the monitors take turns by a Lease object
  systemd      a .service/.timer pair per schedule (OnCalendar= in the schedule's zone)

Options:
  --config FILE      the config (default: ./autoloop-cron.toml)
  --out DIR          write one file per object into DIR instead of printing them
  --image IMG        kubernetes: the container image (default: autoloop-cron:<version>)
  --namespace NS     kubernetes: put every object in namespace NS
  --storage SIZE     kubernetes: the volume's size (default: 10Gi)
  --access-mode M    kubernetes: ReadWriteMany (default; needs a storage class offering it) or
                     ReadWriteOnce (every run pinned to the monitor's node)
  --replicas N       kubernetes: monitor replicas (default 1); more need [ha] lease in the
                     config, so one alerts and the others stand by (docs/standby.md)
  --user             systemd: units for \`systemctl --user\` instead of the system manager
  -h, --help         show this help

A schedule the target cannot express faithfully (e.g. cron's day-of-month OR day-of-week for
systemd, a seconds field for Kubernetes) stops the export with a message naming it; nothing
is written. Set enabled = false on it to export the others.
`;

export interface ExportIo {
  stdout: (text: string) => void;
  stderr: (text: string) => void;
  cwd: string;
  /** For systemd's ExecStart=: the Node binary and the autoloop-cron CLI entry. */
  node: string;
  entry: string;
}

const defaultIo = (): ExportIo => ({
  stdout: (t) => process.stdout.write(t),
  stderr: (t) => process.stderr.write(t),
  cwd: process.cwd(),
  node: process.execPath,
  entry: autoloopCronEntry(),
});

const OPTIONS = {
  config: { type: "string" },
  out: { type: "string" },
  image: { type: "string" },
  namespace: { type: "string" },
  storage: { type: "string" },
  "access-mode": { type: "string" },
  replicas: { type: "string" },
  user: { type: "boolean" },
} as const;

/** Runs `autoloop-cron export …`; `configPath` is a --config given before the subcommand. */
export async function exportCommand(
  argv: string[],
  configPath?: string,
  io: ExportIo = defaultIo(),
): Promise<number> {
  const p = parse(argv, OPTIONS, COMMAND);
  if (flag(p, "help")) {
    io.stdout(EXPORT_HELP);
    return 0;
  }
  const [target, ...extra] = p.positionals;
  if (target !== "kubernetes" && target !== "systemd") {
    const found = target === undefined ? "no target" : JSON.stringify(target);
    throw new UserError(`${COMMAND}: found ${found}; expected kubernetes or systemd; see --help`);
  }
  if (extra.length > 0)
    throw new UserError(`${COMMAND}: unexpected argument ${JSON.stringify(extra[0])}`);
  const only = (name: string, forTarget: string) => {
    if (p.values[name] !== undefined && target !== forTarget) {
      throw new UserError(`${COMMAND} ${target}: --${name} applies to ${forTarget} only`);
    }
  };
  for (const name of ["image", "namespace", "storage", "access-mode", "replicas"])
    only(name, "kubernetes");
  only("user", "systemd");
  const selection = selectSchedules(str(p, "config") ?? configPath, io.cwd);
  for (const name of selection.disabled)
    io.stderr(`note: schedule "${name}" is disabled; left out\n`);
  const result = target === "kubernetes" ? kubernetes(p, selection) : systemd(p, selection, io);
  if (result.kind === "refused") throw refusalError(result.refusals);
  for (const w of result.warnings) io.stderr(`warning: ${w}\n`);
  const out = str(p, "out");
  if (out !== undefined) {
    for (const path of writeFiles(out, result.files, io.cwd)) io.stdout(`wrote ${path}\n`);
  } else {
    const join = target === "kubernetes" ? joinYamlDocuments : joinWithFileMarkers;
    io.stdout(join(result.files));
  }
  return 0;
}

type Selection = ReturnType<typeof selectSchedules>;
type ParsedArgs = ReturnType<typeof parse>;

function kubernetes(p: ParsedArgs, s: Selection): ExportResult {
  const namespace = str(p, "namespace");
  if (namespace !== undefined && !isDnsLabel(namespace)) {
    throw new UserError(
      `${COMMAND} kubernetes: --namespace ${JSON.stringify(namespace)} is not a valid namespace (lowercase letters, digits and "-", at most 63)`,
    );
  }
  const storage = str(p, "storage") ?? "10Gi";
  if (!STORAGE_QUANTITY.test(storage)) {
    throw new UserError(
      `${COMMAND} kubernetes: --storage ${JSON.stringify(storage)} is not a size such as 10Gi or 500Mi`,
    );
  }
  const image = str(p, "image") ?? `autoloop-cron:${packageVersion()}`;
  const accessMode = str(p, "access-mode") ?? "ReadWriteMany";
  if (accessMode !== "ReadWriteMany" && accessMode !== "ReadWriteOnce") {
    throw new UserError(
      `${COMMAND} kubernetes: --access-mode ${JSON.stringify(accessMode)}: expected ReadWriteMany (a storage class that offers it) or ReadWriteOnce (every run pinned to the monitor's node)`,
    );
  }
  const replicas = monitorReplicas(str(p, "replicas"), s.config, accessMode);
  const files = readConfigFiles(s.config);
  const presetFiles = readPresetFiles(s.config, s.schedules);
  return kubernetesExport({
    ...s,
    ...files,
    scheduleFiles: [...files.scheduleFiles, ...presetFiles],
    image,
    namespace,
    storage,
    accessMode,
    replicas,
  });
}

/** `--replicas`: more than one monitor takes turns by the lease, on a volume all can mount. */
function monitorReplicas(text: string | undefined, config: CronConfig, accessMode: string): number {
  if (text === undefined) return 1;
  const replicas = Number(text);
  if (!/^\d+$/.test(text) || replicas < 1 || replicas > 5)
    throw new UserError(
      `${COMMAND} kubernetes: --replicas ${JSON.stringify(text)}: expected a number from 1 to 5 (2: one monitor stands by)`,
    );
  if (replicas > 1 && config.leaseMs === undefined)
    throw new UserError(
      `${COMMAND} kubernetes: --replicas ${replicas}: ${config.file ?? "the config"} has no [ha] lease, so every replica would alert; add [ha] lease = "15s" to it`,
    );
  if (replicas > 1 && accessMode === "ReadWriteOnce")
    throw new UserError(
      `${COMMAND} kubernetes: --replicas ${replicas} with --access-mode ReadWriteOnce: the replicas could not all mount the volume; use ReadWriteMany`,
    );
  return replicas;
}

function systemd(p: ParsedArgs, s: Selection, io: ExportIo): ExportResult {
  return systemdExport(s.schedules, {
    user: flag(p, "user"),
    node: io.node,
    entry: io.entry,
    configFile: s.config.file,
    configDir: s.config.dir,
    stateDir: s.config.stateDir,
  });
}
