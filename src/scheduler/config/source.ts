// The `source` setting: a schedule whose runs take their work from an issue tracker (GitHub
// issues, GitLab issues, Linear); its keys, rules and the held shape.
import { isAbsolute } from "node:path";
import * as z from "zod";
import type { TrackerSource } from "../../tracker/tracker.js";
import { resolveSecret } from "../../util/secrets.js";
import { envNameField } from "./fields.js";

const httpUrl = (example: string) =>
  z.url({ protocol: /^https?$/, error: `an http(s) URL such as ${example}` });
const labelName = z.string().min(1).max(50);

/** What every tracker's entry shares: how many issues a run takes and the token. */
const common = {
  /** Issues one run takes (oldest first). */
  limit: z.number().int().min(1).max(10).default(1),
  token_env: envNameField.optional(),
  token_file: z
    .string()
    .refine(isAbsolute, { message: "an absolute path to a file holding the token" })
    .optional(),
};

const oneToken = (p: { token_env?: string | undefined; token_file?: string | undefined }) =>
  p.token_env === undefined || p.token_file === undefined;
const ONE_TOKEN = {
  message:
    "at most one of token_env or token_file: the tracker token (never written into the file)",
};

/** GitHub and GitLab mark what a run took, and what it finished, with labels. */
const labelled = {
  label: labelName.default("agent-ready"),
  working_label: labelName.default("autoloop:working"),
  done_label: labelName.default("autoloop:done"),
};

const githubIssues = z
  .strictObject({
    repo: z.string().regex(/^[A-Za-z0-9._-]+\/[A-Za-z0-9._-]+$/, { message: "owner/name" }),
    api_url: httpUrl("https://api.github.com").optional(),
    ...labelled,
    ...common,
  })
  .refine(oneToken, ONE_TOKEN);

const gitlabIssues = z
  .strictObject({
    project: z.string().regex(/^[A-Za-z0-9._-]+(\/[A-Za-z0-9._-]+)+$/, { message: "group/name" }),
    api_url: httpUrl("https://gitlab.com").optional(),
    ...labelled,
    ...common,
  })
  .refine(oneToken, ONE_TOKEN);

const linearIssues = z
  .strictObject({
    /** The team's key, as issue identifiers start (`ENG` of ENG-12). */
    team: z.string().regex(/^[A-Za-z0-9]{1,10}$/, { message: "a team key such as ENG" }),
    /** Issues in this workflow state are ready. */
    state: z.string().min(1).default("Todo"),
    /** Only issues with this label, when set. */
    label: labelName.optional(),
    working_state: z.string().min(1).default("In Progress"),
    done_state: z.string().min(1).default("In Review"),
    api_url: httpUrl("https://api.linear.app/graphql").optional(),
    ...common,
  })
  .refine(oneToken, ONE_TOKEN)
  .refine((l) => new Set([l.state, l.working_state, l.done_state]).size === 3, {
    message:
      "state, working_state and done_state naming three different workflow states (an issue's state says whether it is ready, taken or done)",
  })
  .refine((l) => l.api_url === undefined || encryptedOrLocal(l.api_url), {
    message: "an https URL (Linear's client sends the key over plain http only to localhost)",
    path: ["api_url"],
  });

/** What Linear's client accepts: https, or http to this machine. */
function encryptedOrLocal(url: string): boolean {
  const { protocol, hostname } = new URL(url);
  return protocol === "https:" || ["localhost", "127.0.0.1", "[::1]"].includes(hostname);
}

export const sourceField = z
  .strictObject({
    github_issues: githubIssues.optional(),
    gitlab_issues: gitlabIssues.optional(),
    linear_issues: linearIssues.optional(),
  })
  .refine((s) => Object.values(s).filter((v) => v !== undefined).length === 1, {
    message: "exactly one of github_issues, gitlab_issues or linear_issues",
  });
export type SourceEntry = z.output<typeof sourceField>;

/** The variable each tracker's token is read from when neither token_env nor token_file is set. */
export const DEFAULT_TOKEN_ENV = {
  github: "GITHUB_TOKEN",
  gitlab: "GITLAB_TOKEN",
  linear: "LINEAR_API_KEY",
} as const;

type Written = z.output<typeof githubIssues>;
function tokenOf(p: Pick<Written, "token_env" | "token_file">, fallback: string) {
  if (p.token_file !== undefined) return { kind: "file" as const, path: p.token_file };
  return { kind: "env" as const, name: p.token_env ?? fallback };
}

export function sourceOf(entry: SourceEntry): TrackerSource {
  const { github_issues: gh, gitlab_issues: gl, linear_issues: li } = entry;
  if (gh !== undefined)
    return {
      kind: "github",
      repository: gh.repo,
      apiUrl: (gh.api_url ?? "https://api.github.com").replace(/\/+$/, ""),
      label: gh.label,
      workingLabel: gh.working_label,
      doneLabel: gh.done_label,
      limit: gh.limit,
      token: tokenOf(gh, DEFAULT_TOKEN_ENV.github),
    };
  if (gl !== undefined)
    return {
      kind: "gitlab",
      repository: gl.project,
      apiUrl: (gl.api_url ?? "https://gitlab.com").replace(/\/+$/, ""),
      label: gl.label,
      workingLabel: gl.working_label,
      doneLabel: gl.done_label,
      limit: gl.limit,
      token: tokenOf(gl, DEFAULT_TOKEN_ENV.gitlab),
    };
  const l = li!;
  return {
    kind: "linear",
    repository: l.team,
    apiUrl: l.api_url ?? "https://api.linear.app/graphql",
    label: l.label,
    state: l.state,
    workingState: l.working_state,
    doneState: l.done_state,
    limit: l.limit,
    token: tokenOf(l, DEFAULT_TOKEN_ENV.linear),
  };
}

type Sourcing = { name: string; source?: TrackerSource };

/** The variables that hold the schedules' tracker tokens (kept out of every run's environment). */
export function sourceTokenEnvNames(schedules: Iterable<Sourcing>): string[] {
  const names: string[] = [];
  for (const s of schedules) if (s.source?.token.kind === "env") names.push(s.source.token.name);
  return names;
}

/** The key a source's token is written under, for messages (`source.github_issues.token_env`). */
export function sourceTokenField(source: TrackerSource): string {
  const key = source.token.kind === "env" ? "token_env" : "token_file";
  return `source.${source.kind}_issues.${key}`;
}

/**
 * The schedules whose tracker token cannot be read, each with why; the tokens that can are
 * registered with the redactor, so no log, page or comment shows them.
 */
export function unusableSourceTokens(
  schedules: Iterable<Sourcing>,
  env: NodeJS.ProcessEnv,
): Array<{ schedule: string; problem: string }> {
  const out: Array<{ schedule: string; problem: string }> = [];
  for (const s of schedules) {
    if (s.source === undefined) continue;
    try {
      resolveSecret(s.source.token, `schedule "${s.name}": ${sourceTokenField(s.source)}`, { env });
    } catch (err) {
      out.push({ schedule: s.name, problem: (err as Error).message });
    }
  }
  return out;
}
