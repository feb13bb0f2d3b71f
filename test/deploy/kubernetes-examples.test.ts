import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { parseAllDocuments } from "yaml";
import { runExport } from "../export/config-fixture.js";
import { cleanupTempDirs, ROOT, tempDir } from "../helpers/cli.js";

afterEach(cleanupTempDirs);

const DIR = join(ROOT, "deploy/kubernetes");
const manifests = () => readdirSync(DIR).filter((f) => f.endsWith(".yaml"));

describe("deploy/kubernetes", () => {
  it("parses, every manifest", () => {
    for (const file of manifests()) {
      const docs = parseAllDocuments(readFileSync(join(DIR, file), "utf8"));
      for (const d of docs) expect(d.errors, file).toEqual([]);
      expect(docs.length, file).toBeGreaterThan(0);
    }
  });

  it("matches what the export makes from config/ today", async () => {
    const out = tempDir("autoloop-k8s-");
    const r = await runExport(
      [
        "kubernetes",
        "--config",
        join(DIR, "config/autoloop-cron.toml"),
        "--image",
        "registry.example.com/autoloop-cron:0.1.0",
        "--namespace",
        "autoloop-cron",
        "--out",
        out,
      ],
      ROOT,
    );
    expect(r.code).toBe(0);
    for (const file of readdirSync(out)) {
      expect(readFileSync(join(DIR, file), "utf8"), `${file}: regenerate (see README.md)`).toBe(
        readFileSync(join(out, file), "utf8"),
      );
    }
    expect(readdirSync(out).sort()).toEqual(
      manifests()
        .filter((f) => !["namespace.yaml", "secret.example.yaml"].includes(f))
        .sort(),
    );
  });
});
