// Reading options out of an agent CLI's argv (a preset's args and the harness's defaults).

/** Every value of the options `names` in argv, in order (`--flag value` or `--flag=value`). */
export function optionValues(args: readonly string[], names: readonly string[]): string[] {
  const values: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const token = args[i]!;
    const eq = token.indexOf("=");
    if (eq > 0 && names.includes(token.slice(0, eq))) values.push(token.slice(eq + 1));
    else if (names.includes(token) && i + 1 < args.length) values.push(args[++i]!);
  }
  return values;
}

/** The value of the last of `names` in argv, as the CLIs take a repeated option. */
export function optionValue(args: readonly string[], names: readonly string[]): string | undefined {
  return optionValues(args, names).at(-1);
}

/** The value after the first `flag` in `args` (`--flag value` or `--flag=value`). */
export function flagValue(args: readonly string[], flag: string): string | undefined {
  for (let i = 0; i < args.length; i++) {
    if (args[i] === flag) return args[i + 1];
    if (args[i]!.startsWith(`${flag}=`)) return args[i]!.slice(flag.length + 1);
  }
  return undefined;
}
