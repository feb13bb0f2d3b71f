// SVG built as elements, not text: every element is closed and every attribute value and text
// escaped by construction, so what a chart shows (schedule names, stop reasons) stays text.
import { escapeHtml } from "../../util/html-escape.js";

export interface SvgNode {
  readonly svg: string;
}

type AttrValue = string | number | undefined;
type Child = SvgNode | string | false | undefined;

/** A coordinate or size to a tenth of a pixel: finer is noise, and every byte is sent. */
export const px = (n: number): string => String(Math.round(n * 10) / 10);

export function el(name: string, attrs: Record<string, AttrValue>, ...children: Child[]): SvgNode {
  let text = `<${name}`;
  for (const [key, value] of Object.entries(attrs)) {
    if (value === undefined) continue;
    text += ` ${key}="${escapeHtml(typeof value === "number" ? px(value) : value)}"`;
  }
  const inner = children.map(render).join("");
  return { svg: inner === "" ? `${text}/>` : `${text}>${inner}</${name}>` };
}

/** Children side by side, as one node. */
export const group = (nodes: readonly Child[]): SvgNode => ({ svg: nodes.map(render).join("") });

function render(c: Child): string {
  if (c === false || c === undefined) return "";
  return typeof c === "string" ? escapeHtml(c) : c.svg;
}

/**
 * The outer element of a chart: an image named by its `<title>` (what a screen reader says and
 * a pointer's hover shows), sized by its viewBox so that it scales with the page.
 */
export function chart(
  size: { width: number; height: number },
  label: string,
  className: string,
  children: readonly Child[],
): SvgNode {
  return el(
    "svg",
    {
      xmlns: "http://www.w3.org/2000/svg",
      viewBox: `0 0 ${px(size.width)} ${px(size.height)}`,
      width: size.width,
      height: size.height,
      role: "img",
      "aria-label": label,
      class: className,
    },
    el("title", {}, label),
    group(children),
  );
}
