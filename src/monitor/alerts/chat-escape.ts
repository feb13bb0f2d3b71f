// Run text is plain text in every chat format: each service's markup is escaped, so an
// agent's `<!here>`, `<users/all>`, `<@U123>` or `[Approve](http://evil.example)` shows as
// the characters it is, never as a mention or a link (docs/alerts.md, "Run text").

/** Slack mrkdwn and Google Chat text: `&`, `<` and `>` as entities (their documented escape). */
export function angleEscape(text: string): string {
  return text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
}

// CommonMark's backslash escapes for what makes links, emphasis, code, quotes and headings.
const MARKDOWN = /[\\`*_~|<>[\]()#]/g;

/** Teams' Adaptive Card Markdown: link, emphasis and code syntax backslash-escaped. */
export function markdownEscape(text: string): string {
  return text.replace(MARKDOWN, "\\$&");
}

/**
 * Discord's Markdown: escaped as above (`<@id>` and `<#id>` mentions too), and `@everyone` /
 * `@here` broken with a zero-width space, besides `allowed_mentions` pinging nobody.
 */
export function discordEscape(text: string): string {
  return markdownEscape(text).replace(/@/g, "@\u200b");
}
