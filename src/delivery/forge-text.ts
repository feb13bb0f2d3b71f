// A run's report as text on a forge: shown as the run's words, never acted on. A forge acts on
// some text of a pull request's body or a review: a mention pings a user or a whole team, a
// closing keyword before an issue closes that issue when the pull request merges (anyone's, in
// any repository the token reaches), a GitLab quick action at a line's start (`/merge`,
// `/approve`) runs as the token's user, and an HTML comment hides text from the people who
// review it, our review marker among them (another schedule would edit this review as its
// own). Each is broken by a zero-width space, which readers do not see; a control character
// (a terminal escape for those who read it with a CLI, a bidirectional override that reorders
// what they see) is shown as its code. Pure.
import { processRedactor } from "../util/secrets.js";

const ZWSP = "\u200b";

// `@user`, `@org/team`, `@all`: an `@` after a word character is an address, not a mention.
const MENTION = /(^|[^\w])@(?=\w)/gm;
// GitHub's, GitLab's and Gitea's closing words, before what names an issue: `#12`,
// `owner/repo#12`, `!3`, a URL, `GH-12`, a Jira key; `Closes: #1, #2 and #3` closes all three.
const CLOSING =
  /\b(clos(?:e[sd]?|ing)|fix(?:e[sd]|ing)?|resolv(?:e[sd]?|ing)|implement(?:s|ed|ing)?)(?=[\s:]+(?:issues?\s+)?(?:[\w.-]+(?:\/[\w.-]+)*)?(?:[#!]\d|https?:\/\/|GH-\d|[A-Z][A-Z0-9_]+-\d))/gi;
const QUICK_ACTION = /^([ \t]*)\/(?=\w)/gm;
const COMMENT = /<!--/g;
// C0 but tab and line ends, DEL, C1, and the bidirectional overrides and isolates.
const CONTROL = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g;

/** `text` with its mentions, closing words, quick actions, comments and controls made inert. */
export function inertForgeText(text: string): string {
  return text
    .replace(MENTION, `$1@${ZWSP}`)
    .replace(CLOSING, `$1${ZWSP}`)
    .replace(QUICK_ACTION, `$1${ZWSP}/`)
    .replace(COMMENT, `<${ZWSP}!--`)
    .replace(CONTROL, (c) => `<U+${c.charCodeAt(0).toString(16).toUpperCase()}>`);
}

/**
 * The report as it may leave for a forge: redacted first (a secret the report quotes must
 * still match the redactor), then made inert.
 */
export function forgeReport(report: string): string {
  return inertForgeText(processRedactor.redact(report));
}
