import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { parse } from "yaml";
import {
  AmbiguousIncidentError,
  IncidentExistsError,
  IncidentNotFoundError,
  MalformedIncidentError,
} from "../../src/incidents/errors.js";
import { IncidentStore } from "../../src/incidents/store.js";

let dir: string;
let clock: Date;
let ids: number;
let store: IncidentStore;

beforeEach(() => {
  dir = join(mkdtempSync(join(tmpdir(), "incidents-")), "incidents");
  clock = new Date("2026-04-07T12:00:00.000Z");
  ids = 0;
  store = new IncidentStore(dir, { now: () => clock, generateId: () => `inc_test${++ids}` });
});
afterEach(() => rmSync(join(dir, ".."), { recursive: true, force: true }));

function later(minutes: number): void {
  clock = new Date(clock.getTime() + minutes * 60_000);
}

function frontmatterOf(file: string): Record<string, unknown> {
  return parse(readFileSync(file, "utf8").split("---\n")[1]!);
}

const gateStuck = {
  name: "Gate stuck: nightly refactor",
  description: "The completion gate refused task.complete 3 times.",
  priority: "high" as const,
  tags: ["gate", "nightly"],
  runId: "run-abc",
  schedule: "nightly-refactor",
  fingerprint: "gate-stuck:nightly-refactor",
  entry: "task.gate x3\nopen tasks: task-1, task-2",
};

describe("IncidentStore", () => {
  it("creates a Markdown file with frontmatter and a changelog", () => {
    const incident = store.create(gateStuck);
    expect(incident).toMatchObject({
      slug: "gate-stuck-nightly-refactor",
      id: "inc_test1",
      status: "open",
      priority: "high",
      runId: "run-abc",
      createdAt: "2026-04-07T12:00:00.000Z",
    });
    const text = readFileSync(incident.file, "utf8");
    expect(text).toBe(
      [
        "---",
        'id: "inc_test1"',
        'name: "Gate stuck: nightly refactor"',
        'description: "The completion gate refused task.complete 3 times."',
        'priority: "high"',
        'status: "open"',
        'created_at: "2026-04-07T12:00:00.000Z"',
        'updated_at: "2026-04-07T12:00:00.000Z"',
        "tags:",
        '  - "gate"',
        '  - "nightly"',
        'run_id: "run-abc"',
        'schedule: "nightly-refactor"',
        'fingerprint: "gate-stuck:nightly-refactor"',
        "---",
        "",
        "## Changelog",
        "<!-- LIFO: newest entry at top -->",
        "",
        "### 2026-04-07T12:00:00.000Z - Opened",
        "- task.gate x3",
        "- open tasks: task-1, task-2",
        "",
      ].join("\n"),
    );
  });

  it("refuses a duplicate slug and leaves the existing file untouched", () => {
    const first = store.create(gateStuck);
    store.log(first.slug, "operator looked at it");
    const before = readFileSync(first.file, "utf8");
    const error = (() => {
      try {
        store.create({ ...gateStuck, name: "gate STUCK -- nightly refactor!", priority: "low" });
      } catch (err) {
        return err;
      }
    })();
    expect(error).toBeInstanceOf(IncidentExistsError);
    expect((error as IncidentExistsError).slug).toBe("gate-stuck-nightly-refactor");
    expect(readFileSync(first.file, "utf8")).toBe(before);
    expect(readdirSync(dir)).toEqual(["gate-stuck-nightly-refactor.md"]); // no temp files left
  });

  it("finds by exact slug, then prefix, then substring; ambiguity lists candidates", () => {
    store.create({ name: "Disk full" });
    store.create({ name: "Disk full again" });
    store.create({ name: "Nightly failed" });
    expect(store.find("disk-full").slug).toBe("disk-full");
    expect(store.find("Nightly").slug).toBe("nightly-failed");
    expect(store.find("again").slug).toBe("disk-full-again");
    expect(() => store.find("disk")).toThrow(AmbiguousIncidentError);
    expect(() => store.find("disk")).toThrow("disk-full, disk-full-again");
    expect(() => store.find("nothing")).toThrow(IncidentNotFoundError);
  });

  it("prepends log entries newest first and bumps updated_at", () => {
    const { slug, file } = store.create(gateStuck);
    later(5);
    store.log("gate stuck", "first note");
    later(5);
    const incident = store.log(slug, "second note\nwith two lines", "Operator note");
    expect(incident.updatedAt).toBe("2026-04-07T12:10:00.000Z");
    const headings = readFileSync(file, "utf8").match(/^### .*$/gm);
    expect(headings).toEqual([
      "### 2026-04-07T12:10:00.000Z - Operator note",
      "### 2026-04-07T12:05:00.000Z - Update",
      "### 2026-04-07T12:00:00.000Z - Opened",
    ]);
    expect(readFileSync(file, "utf8")).toContain(
      "### 2026-04-07T12:10:00.000Z - Operator note\n- second note\n- with two lines\n\n### 2026-04-07T12:05",
    );
    expect(frontmatterOf(file).updated_at).toBe("2026-04-07T12:10:00.000Z");
    expect(frontmatterOf(file).created_at).toBe("2026-04-07T12:00:00.000Z");
  });

  it("acknowledges, resolves with a summary, drops out of the snapshot, and reopens", () => {
    store.create({ ...gateStuck });
    store.create({ name: "Run crashed", priority: "critical", fingerprint: "crashed:x" });
    later(1);
    store.acknowledge("crashed", "looking");
    expect(store.snapshot().active).toEqual([
      {
        slug: "run-crashed",
        name: "Run crashed",
        status: "acknowledged",
        priority: "critical",
        updatedAt: "2026-04-07T12:01:00.000Z",
      },
      {
        slug: "gate-stuck-nightly-refactor",
        name: gateStuck.name,
        status: "open",
        priority: "high",
        updatedAt: "2026-04-07T12:00:00.000Z",
      },
    ]);
    later(1);
    const resolved = store.resolve("gate", "Closed the open tasks; the run completed.");
    expect(resolved.status).toBe("resolved");
    expect(resolved.body).toMatch(/^\n## Changelog\n<!--.*-->\n\n### \S+ - Resolved\n- Closed/);
    expect(store.snapshot().active.map((i) => i.slug)).toEqual(["run-crashed"]);
    expect(store.list({ status: "resolved" }).map((i) => i.slug)).toEqual([resolved.slug]);
    expect(() => store.acknowledge(resolved.slug)).toThrow("reopen it first");
    expect(store.reopen(resolved.slug, "it came back").status).toBe("open");
  });

  it("finds by fingerprint, preferring an active incident", () => {
    store.create({ name: "Crash one", fingerprint: "crashed:nightly" });
    store.resolve("crash-one", "fixed");
    later(1);
    expect(store.findByFingerprint("crashed:nightly")?.slug).toBe("crash-one");
    store.create({ name: "Crash two", fingerprint: "crashed:nightly" });
    later(1);
    store.log("crash-one", "late note on the resolved one");
    expect(store.findByFingerprint("crashed:nightly")?.slug).toBe("crash-two");
    expect(store.findByFingerprint("other")).toBeUndefined();
  });

  it("finds by fingerprint what another process created, resolved or removed since", () => {
    const other = new IncidentStore(dir, { now: () => clock, generateId: () => "inc_other" });
    for (let i = 0; i < 20; i++) store.create({ name: `Noise ${i}`, fingerprint: `noise:${i}` });
    expect(store.findByFingerprint("gate:nightly")).toBeUndefined();
    other.create({ name: "Gate nightly", fingerprint: "gate:nightly" });
    expect(store.findByFingerprint("gate:nightly")?.status).toBe("open");
    later(1);
    other.resolve("gate-nightly", "closed by hand");
    expect(store.findByFingerprint("gate:nightly")?.status).toBe("resolved");
    rmSync(other.fileOf("gate-nightly"));
    expect(store.findByFingerprint("gate:nightly")).toBeUndefined();
    expect(store.findByFingerprint("noise:7")?.slug).toBe("noise-7");
  });

  it("respects hand edits: changed priority, added paragraph, extra key, comments", () => {
    const { file, slug } = store.create(gateStuck);
    const edited = readFileSync(file, "utf8")
      .replace('priority: "high"', "priority: Critical  # paged the on-call")
      .replace('status: "open"', "status: acknowledged")
      .replace(
        "---\n\n## Changelog",
        "owner: dana\n---\n\nRoot cause: disk quota.\n\n## Changelog",
      );
    writeFileSync(file, edited);
    expect(store.find(slug)).toMatchObject({
      priority: "critical",
      status: "acknowledged",
      extra: { owner: "dana" },
    });
    later(3);
    const after = store.log(slug, "still stuck");
    expect(after).toMatchObject({ priority: "critical", status: "acknowledged" });
    const text = readFileSync(file, "utf8");
    expect(text).toContain("priority: Critical # paged the on-call");
    expect(text).toContain("owner: dana\n");
    expect(text).toContain("\nRoot cause: disk quota.\n\n## Changelog\n");
    expect(frontmatterOf(file).updated_at).toBe("2026-04-07T12:03:00.000Z");
    expect(text.indexOf("- still stuck")).toBeLessThan(text.indexOf("- task.gate x3"));
  });

  it("names the file and the problem when frontmatter is malformed", () => {
    const { file, slug } = store.create({ name: "Broken one" });
    store.create({ name: "Fine one" });
    writeFileSync(file, "---\nname: [unclosed\nstatus: open\n---\n\nbody\n");
    expect(() => store.find(slug)).toThrow(MalformedIncidentError);
    expect(() => store.find(slug)).toThrow(`${file}: frontmatter is not valid YAML (line 3)`);
    writeFileSync(file, "---\npriority: urgent\n---\n");
    expect(() => store.find(slug)).toThrow(
      `${file}: priority: found "urgent"; expected one of "critical", "high", "medium", "low"`,
    );
    writeFileSync(file, "no frontmatter here\n");
    expect(() => store.log(slug, "x")).toThrow(`${file}: no YAML frontmatter`);
    const snapshot = store.snapshot();
    expect(snapshot.active.map((i) => i.slug)).toEqual(["fine-one"]);
    expect(snapshot.problems).toEqual([
      `${file}: no YAML frontmatter: the first line must be "---"`,
    ]);
  });
});
