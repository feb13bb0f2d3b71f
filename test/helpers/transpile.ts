// Builds a runnable JS copy of some src/ modules for child-process tests: each file is
// transpiled on its own (isolatedModules holds), following relative imports from the entries.
import { mkdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import ts from "typescript";

const ROOT = resolve(import.meta.dirname, "../..");

export function transpileClosure(entries: string[], outDir: string): void {
  const queue = entries.map((e) => resolve(ROOT, e));
  const seen = new Set<string>();
  while (queue.length > 0) {
    const file = queue.pop()!;
    if (seen.has(file)) continue;
    seen.add(file);
    const source = readFileSync(file, "utf8");
    for (const m of source.matchAll(/(?:from |import\()"(\.{1,2}\/[^"]+)\.js"/g)) {
      queue.push(resolve(dirname(file), `${m[1]}.ts`));
    }
    const js = ts.transpileModule(source, {
      compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022 },
    }).outputText;
    const out = join(outDir, relative(ROOT, file)).replace(/\.ts$/, ".js");
    mkdirSync(dirname(out), { recursive: true });
    writeFileSync(out, js);
  }
  writeFileSync(join(outDir, "package.json"), '{"type":"module"}\n');
  // Bare imports (nanoid, zod, nodemailer) resolve through the repo's node_modules.
  symlinkSync(join(ROOT, "node_modules"), join(outDir, "node_modules"), "dir");
}
