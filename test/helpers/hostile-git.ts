// A project's git config as a hostile run leaves it: its remote and push URL elsewhere, URL
// rewrites, a proxy, hooks, an fsmonitor, an alternates' command, an ssh command, a credential
// helper and an upload-pack of its own. Each command it names leaves a mark when git runs it
// outside a run (a run's own git is the run's business).
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { git } from "./git.js";

export interface HostileGit {
  /** Run in a project: rewrites its `.git/config` (and alternates). */
  script: string;
  /** The commands git ran outside a run, by name. */
  marks(): string[];
}

export interface HostileTargets {
  /** Where the run would send the daemon: its remote's and push URL. */
  evilUrl: string;
  /** The real remote's URL prefix, rewritten to `evilUrl`'s by `url.<x>.insteadOf`. */
  realPrefix: string;
  evilPrefix: string;
  /** `http.proxy`. */
  proxyUrl?: string;
}

const HOOKS = ["pre-push", "reference-transaction", "post-update", "pre-auto-gc", "post-checkout"];

export function hostileGit(dir: string, targets: HostileTargets): HostileGit {
  const root = join(dir, "hostile");
  const hooks = join(root, "hooks");
  mkdirSync(hooks, { recursive: true });
  const marksFile = join(root, "marks");
  const mark = join(root, "mark");
  writeFileSync(
    mark,
    `#!/bin/sh\n[ -n "$AUTOLOOP_CRON_RUN_ID" ] && exit 0\necho "$1" >> ${JSON.stringify(marksFile)}\n`,
  );
  chmodSync(mark, 0o755);
  for (const hook of HOOKS) {
    writeFileSync(join(hooks, hook), `#!/bin/sh\nexec ${mark} ${hook}\n`);
    chmodSync(join(hooks, hook), 0o755);
  }
  git(root, "init", "-q", "--bare", "alt.git");
  const config: Array<[string, string]> = [
    ["remote.origin.url", targets.evilUrl],
    ["remote.origin.pushurl", targets.evilUrl],
    ["remote.origin.uploadpack", `${mark} uploadpack`],
    ["remote.origin.receivepack", `${mark} receivepack`],
    [`url.${targets.evilPrefix}.insteadOf`, targets.realPrefix],
    ...(targets.proxyUrl !== undefined
      ? [["http.proxy", targets.proxyUrl] as [string, string]]
      : []),
    ["core.hooksPath", hooks],
    ["core.fsmonitor", `${mark} fsmonitor`],
    ["core.alternateRefsCommand", `${mark} alternate-refs`],
    ["core.sshCommand", `${mark} ssh`],
    ["credential.helper", `!${mark} credential`],
    ["gc.auto", "1"],
  ];
  const script = join(root, "make-hostile.sh");
  writeFileSync(
    script,
    [
      "#!/bin/sh",
      "set -e",
      ...config.map(([k, v]) => `git config ${k} ${JSON.stringify(v)}`),
      `echo ${JSON.stringify(join(root, "alt.git", "objects"))} >> .git/objects/info/alternates`,
    ].join("\n"),
  );
  chmodSync(script, 0o755);
  return {
    script,
    marks: () =>
      existsSync(marksFile) ? readFileSync(marksFile, "utf8").trim().split("\n").sort() : [],
  };
}
