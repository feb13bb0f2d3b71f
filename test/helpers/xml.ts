// A strict check that text is well-formed XML (what an SVG must be to render as an image):
// every element closed in order, attributes quoted and unique, no raw `<` or `&` in text,
// only XML's own entities. Returns the problem, or undefined; the elements' names in order.

const NAME = "[A-Za-z_][\\w.:-]*";
const TAG = new RegExp(`^<(/?)(${NAME})((?:\\s+${NAME}\\s*=\\s*(?:"[^"<]*"|'[^'<]*'))*)\\s*(/?)>`);
const ATTR = new RegExp(`(${NAME})\\s*=`, "g");
const ENTITY = /&(?:amp|lt|gt|quot|apos|#\d+|#x[0-9a-fA-F]+);/y;

export function xmlProblem(text: string): string | undefined {
  const open: string[] = [];
  let roots = 0;
  for (let i = 0; i < text.length; ) {
    const c = text[i]!;
    if (c === "&") {
      ENTITY.lastIndex = i;
      if (!ENTITY.test(text)) return `a bare & at ${i}: ${text.slice(i, i + 20)}`;
      i = ENTITY.lastIndex;
    } else if (c === "<") {
      const m = TAG.exec(text.slice(i));
      if (m === null) return `a malformed tag at ${i}: ${text.slice(i, i + 40)}`;
      const [whole, close, name, attrs, selfClose] = m as unknown as string[];
      const names = [...attrs!.matchAll(ATTR)].map((a) => a[1]);
      if (new Set(names).size !== names.length) return `a repeated attribute in <${name}>`;
      if (close) {
        if (open.pop() !== name) return `</${name}> at ${i} closes nothing open`;
      } else if (!selfClose) open.push(name!);
      if (open.length === 0) roots++;
      if (!close && open.length === 1 && roots > 0) return "more than one root element";
      i += whole!.length;
    } else if (c === ">" && open.length === 0 && roots === 0) return "text before the root";
    else i++;
  }
  if (open.length > 0) return `<${open.at(-1)}> is never closed`;
  return roots === 1 ? undefined : `${roots} root elements`;
}
