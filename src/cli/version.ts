// The package version, read from package.json beside the compiled code.
import { readFileSync } from "node:fs";

export function packageVersion(): string {
  const pkg = JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8")) as {
    version: string;
  };
  return pkg.version;
}
