import { describe, expect, it } from "vitest";
import { runSteps, StepPace } from "../../src/util/steps.js";
import { parseTomlArraySteps, parseTomlText } from "../../src/util/toml-input.js";

const entry = (i: number, extra = "") =>
  `[[schedule]]\nname = "s${i}"\ncron = "${i % 60} * * * *"\ncommand = ["echo", "${i}"]\n${extra}\n`;

function steps(text: string, perStep = 3) {
  const gen = parseTomlArraySteps("f.toml", text, "schedule", StepPace.fixed(perStep));
  let yields = 0;
  for (;;) {
    const r = gen.next();
    if (r.done) return { result: r.value, yields };
    yields++;
  }
}

describe("parseTomlArraySteps: a long array of tables parsed a few tables per step", () => {
  it("gives exactly the whole file's value, sub-tables and the preamble included", () => {
    let text = "# team schedules\nversion = 1\n\n";
    for (let i = 0; i < 10; i++)
      text += entry(i, i % 4 === 0 ? `[schedule.env]\nN = "${i}"\n` : "# a comment\n");
    text += '  [[ schedule ]]  # odd spacing\r\nname = "last"\ncron = "@daily"\n';
    const { result, yields } = steps(text);
    expect(result).toEqual(parseTomlText("f.toml", text));
    expect(yields).toBe(4); // 11 tables, 3 per piece
    expect(result.ok && (result.value.schedule as unknown[]).length).toBe(11);
  });

  it("sizes each piece by the pace: small while it is slow, bigger once fast", () => {
    let text = "";
    for (let i = 0; i < 12; i++) text += entry(i);
    const count = (pace: StepPace) => {
      const gen = parseTomlArraySteps("f.toml", text, "schedule", pace);
      let yields = 0;
      for (let r = gen.next(); !r.done; r = gen.next()) yields++;
      return yields;
    };
    expect(count(new StepPace(0, 2, 5))).toBe(6); // every piece too slow: 2 tables each
    expect(count(new StepPace(1e9, 2, 5))).toBe(3); // fast: 2, then 5 and 5
  });

  it("parses the whole text when a multi-line string could hide a header", () => {
    const text = `${entry(1)}${entry(2)}description = """\n[[schedule]]\n"""\n${entry(3)}${entry(4)}`;
    const { result, yields } = steps(text, 1);
    expect(yields).toBe(0);
    expect(result).toEqual(parseTomlText("f.toml", text));
  });

  it("parses the whole text when a comment holds a line separator (no line end in TOML)", () => {
    // For a regular expression's ^ and $, U+2028 ends a line: a header would seem to start.
    const text = `${entry(1)}# note\u2028[[schedule]]\n${entry(2)}${entry(3)}`;
    const { result, yields } = steps(text, 1);
    expect(yields).toBe(0);
    expect(result).toEqual(parseTomlText("f.toml", text));
    expect(result.ok && (result.value.schedule as unknown[]).length).toBe(3);
  });

  it("reports a syntax error at its line in the whole file", () => {
    const lines = [entry(1), entry(2), entry(3), entry(4), 'oops = "\n', entry(5)].join("");
    const { result } = steps(lines, 2);
    expect(result).toEqual(parseTomlText("f.toml", lines));
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.problem.field).toMatch(/^line 21\b/);
  });

  it("lets the whole parse judge a table defined in two pieces", () => {
    const text = `${entry(1)}[other]\na = 1\n${entry(2)}${entry(3)}[other]\nb = 2\n`;
    const { result } = steps(text, 1);
    expect(result).toEqual(parseTomlText("f.toml", text));
    expect(result.ok).toBe(false);
  });

  it("matches the whole parse on many generated files", () => {
    for (let n = 0; n < 30; n++) {
      let text = n % 3 === 0 ? 'top = "x"\n' : "";
      for (let i = 0; i < n; i++)
        text += entry(i, i % 5 === 1 ? '[schedule.monitor]\nstall_after = "1h"\n' : "");
      expect(
        runSteps(parseTomlArraySteps("f.toml", text, "schedule", StepPace.fixed(1 + (n % 4)))),
      ).toEqual(parseTomlText("f.toml", text));
    }
  });
});
