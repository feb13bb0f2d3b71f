// The package version, read from our package.json.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { packageRoot } from "../util/package-root.js";

export function packageVersion(): string {
  const pkg = JSON.parse(readFileSync(join(packageRoot(), "package.json"), "utf8")) as {
    version: string;
  };
  return pkg.version;
}
