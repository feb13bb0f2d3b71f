// `node scripts/function-lengths.mjs [dir]`: the source tree's size and its longest functions
// (issue 46's measures: files, lines, functions over 80 lines, the ten longest).
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import ts from "typescript";

const root = process.argv[2] ?? "src";
const files = [];
const walk = (dir) => {
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) walk(path);
    else if (name.endsWith(".ts")) files.push(path);
  }
};
walk(root);

let lines = 0;
const functions = [];
for (const file of files) {
  const text = readFileSync(file, "utf8");
  lines += text.split("\n").length - (text.endsWith("\n") ? 1 : 0);
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const visit = (node) => {
    if (ts.isFunctionLike(node) && node.body !== undefined) {
      const start = source.getLineAndCharacterOfPosition(node.getStart()).line;
      const end = source.getLineAndCharacterOfPosition(node.end).line;
      const name =
        node.name?.getText() ??
        (ts.isVariableDeclaration(node.parent) ? node.parent.name.getText() : "(anonymous)");
      functions.push({
        where: `${relative(root, file)}:${start + 1}`,
        name,
        lines: end - start + 1,
      });
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
}
functions.sort((a, b) => b.lines - a.lines);
const over = (n) => functions.filter((f) => f.lines > n).length;
console.log(`${files.length} files, ${lines} lines in ${root}/`);
console.log(`functions over 80 lines: ${over(80)}; over 100: ${over(100)}`);
const shown = Number(process.argv[3] ?? 10);
for (const f of functions.slice(0, shown))
  console.log(`  ${String(f.lines).padStart(4)}  ${f.name}  ${f.where}`);
