// Server-rendered HTML without a template engine: `html` escapes every interpolated value
// unless it is itself Html, so text from journals, schedule files and incidents cannot
// become markup.
import { escapeHtml } from "../util/html-escape.js";

export class Html {
  constructor(readonly text: string) {}
  toString(): string {
    return this.text;
  }
}

type Value = Html | string | number | boolean | null | undefined | readonly Value[];

function render(value: Value): string {
  if (value === null || value === undefined || value === false) return "";
  if (value instanceof Html) return value.text;
  if (Array.isArray(value)) return value.map(render).join("");
  return escapeHtml(String(value));
}

export function html(strings: TemplateStringsArray, ...values: Value[]): Html {
  let out = strings[0]!;
  for (let i = 0; i < values.length; i++) out += render(values[i]!) + strings[i + 1]!;
  return new Html(out);
}

/** "3 min ago", "in 2 h": a short relative time for a title or a cell. */
export function relative(iso: string | undefined, now: number): string {
  if (iso === undefined) return "";
  const ms = Date.parse(iso) - now;
  if (Number.isNaN(ms)) return "";
  const abs = Math.abs(ms);
  const [n, unit] =
    abs < 60_000
      ? [Math.round(abs / 1000), "s"]
      : abs < 3_600_000
        ? [Math.round(abs / 60_000), "min"]
        : abs < 172_800_000
          ? [Math.round(abs / 3_600_000), "h"]
          : [Math.round(abs / 86_400_000), "d"];
  return ms >= 0 ? `in ${n} ${unit}` : `${n} ${unit} ago`;
}

/** An ISO instant in a <time> element, shown as "2026-11-25 10:00:00Z (3 min ago)". */
export function when(iso: string | undefined, now: number): Html {
  if (iso === undefined || iso === "") return html`<span class="muted">—</span>`;
  const shown = iso.replace("T", " ").replace(/\.\d+Z$/, "Z");
  return html`<time datetime="${iso}">${shown}</time> <span class="muted">(${relative(iso, now)})</span>`;
}
