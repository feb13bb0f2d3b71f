// The little Markdown an incident file holds (headings, bullet lists, fenced code, paragraphs,
// `code` and **bold**), rendered for the page. Every character of the text is escaped first:
// only the markup made here is markup. HTML comments (the changelog's LIFO note) are dropped.
import { escapeHtml } from "../util/html-escape.js";
import { Html } from "./html.js";

/** Inline marks on already escaped text. */
function inline(escaped: string): string {
  return escaped
    .replace(/`([^`]+)`/g, "<code>$1</code>")
    .replace(/\*\*([^*]+)\*\*/g, "<strong>$1</strong>");
}

export function renderMarkdown(text: string): Html {
  const out: string[] = [];
  let list = false;
  let paragraph: string[] = [];
  const flush = () => {
    if (paragraph.length > 0) out.push(`<p>${inline(escapeHtml(paragraph.join(" ")))}</p>`);
    paragraph = [];
    if (list) out.push("</ul>");
    list = false;
  };
  const lines = text.replace(/<!--[\s\S]*?-->/g, "").split(/\r?\n/);
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    const fence = /^```/.exec(line);
    if (fence) {
      flush();
      const code: string[] = [];
      while (++i < lines.length && !/^```/.test(lines[i]!)) code.push(lines[i]!);
      out.push(`<pre>${escapeHtml(code.join("\n"))}</pre>`);
      continue;
    }
    const heading = /^(#{1,6})\s+(.*)$/.exec(line);
    const bullet = /^\s*[-*]\s+(.*)$/.exec(line);
    if (heading) {
      flush();
      // Page headings are h1/h2 already: the file's levels start below them.
      const level = Math.min(6, heading[1]!.length + 1);
      out.push(`<h${level}>${inline(escapeHtml(heading[2]!))}</h${level}>`);
    } else if (bullet) {
      if (paragraph.length > 0) flush();
      if (!list) out.push("<ul>");
      list = true;
      out.push(`<li>${inline(escapeHtml(bullet[1]!))}</li>`);
    } else if (line.trim() === "") flush();
    else {
      if (list) flush();
      paragraph.push(line.trim());
    }
  }
  flush();
  return new Html(out.join("\n"));
}
