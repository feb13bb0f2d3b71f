// Values written into systemd unit files: command-line quoting, specifier escaping, time spans.

/** `%` starts a specifier (%h, %n) in most settings; a literal one is written `%%`. */
export function escapeSpecifiers(text: string): string {
  return text.replaceAll("%", "%%");
}

/** One word of a space-separated list (ReadWritePaths=), quoted when it holds blanks or quotes. */
export function quoteWord(word: string): string {
  const escaped = escapeSpecifiers(word);
  if (escaped !== "" && !/[\s"'\\;]/.test(escaped)) return escaped;
  return `"${escaped.replaceAll("\\", "\\\\").replaceAll('"', '\\"')}"`;
}

/** An ExecStart= command line: every argument literal (no `$VAR` expansion, no specifiers). */
export function execLine(argv: string[]): string {
  // A function replacer: in a replacement string "$$" would mean a single "$".
  return argv.map((arg) => quoteWord(arg).replaceAll("$", () => "$$")).join(" ");
}

/** A systemd time span for `ms`, in whole seconds when it is one. */
export function timeSpan(ms: number): string {
  return ms % 1000 === 0 ? `${ms / 1000}s` : `${ms}ms`;
}
