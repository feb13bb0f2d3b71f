// The `deliver` setting: a schedule's worktree runs delivered as one pull request (GitLab: merge
// request) per schedule, on branch `autoloop/<schedule>`; its keys, rules and the held shape.
import { isAbsolute } from "node:path";
import * as z from "zod";
import { FORGES, type ForgeKind } from "../../forge/forge.js";
import { resolveSecret, type SecretRef } from "../../util/secrets.js";
import { envNameField } from "./fields.js";

export type { ForgeKind };

/** Where each forge's API is when `api_url` is not written (Gitea has no public default). */
export const DEFAULT_API_URLS: Record<ForgeKind, string | undefined> = {
  github: "https://api.github.com",
  gitlab: "https://gitlab.com",
  gitea: undefined,
};

/** A branch name: no "..", "//", leading or trailing "/". */
export const REF_NAME = /^(?!.*\.\.)(?!.*\/\/)(?!\/)(?!.*\/$)[A-Za-z0-9._/-]+$/;
/** A git branch name as a schedule writes one (no "..", "//", leading or trailing "/"). */
export const refName = (what: string) =>
  z.string().regex(REF_NAME, { message: `${what}: letters, digits, ".", "_", "-" and "/"` });

/** How the daemon reaches the forge: the keys a pull request and a review share. */
const forgeAccess = {
  remote: z
    .string()
    .regex(/^[A-Za-z0-9._-]+$/, { message: 'the name of a git remote, such as "origin"' })
    .default("origin"),
  forge: z.enum(FORGES),
  token_env: envNameField.optional(),
  token_file: z
    .string()
    .refine(isAbsolute, { message: "an absolute path to a file holding the token" })
    .optional(),
  api_url: z
    .url({ protocol: /^https?$/, error: "an http(s) URL such as https://api.github.com" })
    .optional(),
  /** owner/name (GitLab: group/subgroup/name); absent: read from the remote's URL. */
  repository: z
    .string()
    .regex(/^[A-Za-z0-9._-]+(\/[A-Za-z0-9._-]+)+$/, { message: "owner/name" })
    .optional(),
  /** The run's report file, its title and body; absent: `<PRESET-NAME>.md`. */
  report: z
    .string()
    .regex(/^[A-Za-z0-9._-]+(\/[A-Za-z0-9._-]+)*$/, { message: "a file path in the repository" })
    .refine((p) => !p.split("/").includes(".."), { message: "a path inside the repository" })
    .optional(),
};

type AccessEntry = { forge: ForgeKind; token_env?: string; token_file?: string; api_url?: string };
const oneToken = (p: AccessEntry) => (p.token_env === undefined) !== (p.token_file === undefined);
const oneTokenMessage = {
  message: "exactly one of token_env or token_file: the forge token (never written into the file)",
};
const knownApi = (p: AccessEntry) =>
  p.api_url !== undefined || DEFAULT_API_URLS[p.forge] !== undefined;
const knownApiMessage = {
  message: 'api_url for forge "gitea", such as https://gitea.example.com/api/v1',
};

const pullRequestField = z
  .strictObject({
    ...forgeAccess,
    /** The branch the pull request merges into; absent: the branch the run started from. */
    base: refName("a branch name").optional(),
    labels: z.array(z.string().min(1).max(50)).default([]),
    draft: z.boolean().default(false),
    reviewers: z
      .array(z.string().regex(/^[A-Za-z0-9._-]+$/, { message: "a user name" }))
      .default([]),
  })
  .refine(oneToken, oneTokenMessage)
  .refine(knownApi, knownApiMessage);

/** A review of the pull request a run was fired for (`--set pr=<n>`, a hook's payload). */
const reviewField = z
  .strictObject({
    ...forgeAccess,
    /** A pull request from a fork (another repository) is reviewed only when this says so. */
    allow_forks: z.boolean().default(false),
  })
  .refine(oneToken, oneTokenMessage)
  .refine(knownApi, knownApiMessage);

export const deliverField = z
  .strictObject({ pull_request: pullRequestField.optional(), review: reviewField.optional() })
  .refine((d) => d.pull_request !== undefined || d.review !== undefined, {
    message: "pull_request = { ... } or review = { ... }: what the schedule's runs deliver",
  });
export type DeliverEntry = z.output<typeof deliverField>;

/** A schedule's pull request delivery as the scheduler holds it. */
export interface PullRequestDelivery {
  remote: string;
  forge: ForgeKind;
  base?: string;
  labels: string[];
  draft: boolean;
  reviewers: string[];
  token: Extract<SecretRef, { kind: "env" | "file" }>;
  apiUrl: string;
  repository?: string;
  report?: string;
}

/** A schedule's review delivery: the report posted on the pull request its run was fired for. */
export interface ReviewDelivery {
  remote: string;
  forge: ForgeKind;
  token: Extract<SecretRef, { kind: "env" | "file" }>;
  apiUrl: string;
  repository?: string;
  report?: string;
  allowForks: boolean;
}

export interface DeliverSettings {
  pullRequest?: PullRequestDelivery;
  review?: ReviewDelivery;
}

type AccessOutput = AccessEntry & { remote: string; repository?: string; report?: string };

function accessOf(p: AccessOutput) {
  return {
    remote: p.remote,
    forge: p.forge,
    token:
      p.token_env !== undefined
        ? ({ kind: "env", name: p.token_env } as const)
        : ({ kind: "file", path: p.token_file! } as const),
    apiUrl: (p.api_url ?? DEFAULT_API_URLS[p.forge]!).replace(/\/+$/, ""),
    ...(p.repository !== undefined && { repository: p.repository }),
    ...(p.report !== undefined && { report: p.report }),
  };
}

export function deliverOf(entry: DeliverEntry): DeliverSettings {
  const p = entry.pull_request;
  const r = entry.review;
  return {
    ...(p !== undefined && {
      pullRequest: {
        ...accessOf(p),
        ...(p.base !== undefined && { base: p.base }),
        labels: p.labels,
        draft: p.draft,
        reviewers: p.reviewers,
      },
    }),
    ...(r !== undefined && { review: { ...accessOf(r), allowForks: r.allow_forks } }),
  };
}

/** Each forge token a schedule's `deliver` names, with the key that names it. */
export function deliverTokens(
  deliver: DeliverSettings | undefined,
): Array<{ key: string; token: SecretRef }> {
  const out: Array<{ key: string; token: SecretRef }> = [];
  for (const [name, d] of [
    ["pull_request", deliver?.pullRequest],
    ["review", deliver?.review],
  ] as const)
    if (d !== undefined)
      out.push({
        key: `deliver.${name}.${d.token.kind === "env" ? "token_env" : "token_file"}`,
        token: d.token,
      });
  return out;
}

type Delivering = { name: string; deliver?: DeliverSettings };

/** The variables that hold the schedules' forge tokens (kept out of every run's environment). */
export function deliverTokenEnvNames(schedules: Iterable<Delivering>): string[] {
  const names: string[] = [];
  for (const s of schedules)
    for (const { token } of deliverTokens(s.deliver))
      if (token.kind === "env") names.push(token.name);
  return names;
}

/**
 * The schedules whose forge token cannot be read (unset, empty, unreadable file), each with
 * why; the tokens that can are registered with the redactor, so no log or page shows them.
 */
export function unusableDeliverTokens(
  schedules: Iterable<Delivering>,
  env: NodeJS.ProcessEnv,
): Array<{ schedule: string; key: string; problem: string }> {
  const out: Array<{ schedule: string; key: string; problem: string }> = [];
  for (const s of schedules)
    for (const { key, token } of deliverTokens(s.deliver))
      try {
        resolveSecret(token, `schedule "${s.name}": ${key}`, { env });
      } catch (err) {
        out.push({ schedule: s.name, key, problem: (err as Error).message });
      }
  return out;
}
