// Where an export goes: one stream on stdout, or one file per object into a folder.
import { mkdirSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";

/** One generated file: its name (no folders) and its whole text. */
export interface ExportFile {
  name: string;
  text: string;
}

/** An export's outcome: every file, or every schedule that could not be carried over. */
export type ExportResult =
  | { kind: "ok"; files: ExportFile[]; warnings: string[] }
  | { kind: "refused"; refusals: string[] };

/** systemd units on stdout: each file after a `# ---- file: NAME ----` line. */
export function joinWithFileMarkers(files: ExportFile[]): string {
  return files.map((f) => `# ---- file: ${f.name} ----\n${f.text}`).join("\n");
}

/** Kubernetes objects on stdout: one multi-document YAML stream. */
export function joinYamlDocuments(files: ExportFile[]): string {
  return files.map((f) => (f.text.startsWith("---") ? f.text : `---\n${f.text}`)).join("");
}

/** Writes every file into `dir` (created when missing); returns the paths written. */
export function writeFiles(dir: string, files: ExportFile[], cwd = process.cwd()): string[] {
  const target = resolve(cwd, dir);
  mkdirSync(target, { recursive: true });
  return files.map((f) => {
    const path = join(target, f.name);
    writeFileSync(path, f.text);
    return path;
  });
}
