// Every preset of the public autoloop (test/fixtures/public-presets, copied from its sources)
// starts and runs here with a scripted `command` agent, and each key it sets that this harness
// does not implement is named in a warning: never dropped in silence, never a refusal.
import { chmodSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { autoloop, cleanupTempDirs, ROOT, tempDir } from "../helpers/cli.js";
import { field, journalOf } from "../helpers/journal.js";

afterEach(cleanupTempDirs);

const FIXTURES = join(ROOT, "test", "fixtures", "public-presets");

// The first allowed event (any, for a preset without roles), with evidence enough for any gate of these presets; a CONTINUE
// verdict for the metareview (which emits nothing).
const AGENT = `#!/bin/sh
if [ "$AUTOLOOP_REVIEW_MODE" != metareview ]; then
  first="\${AUTOLOOP_ALLOWED_EVENTS%%,*}"
  [ -n "$first" ] || first=work.done
  "$AUTOLOOP_BIN" emit "$first" "commit=abc1234 merged=main tests=3 lint=0 typecheck=0 coverage=91"
fi
printf '%s\\n' '\`\`\`json' '{"verdict": "CONTINUE", "confidence": 0.9, "reasoning": "scripted"}' '\`\`\`'
`;

/** Warnings each preset must get, by the keys it sets that this harness does not run ({agent}: the script's path, quoted). */
const EXPECTED: Record<string, string[]> = {
  autoqa: [
    'backend.kind = "pi" is not implemented here; running {agent} as a command backend instead',
  ],
  autowiki: [
    'backend.kind = "claude-sdk" is not implemented here; running {agent} as a command backend instead (ignoring backend.trust_all_tools, backend.model)',
    "backend.disallowed_tools is not implemented here and is ignored",
    'role[0].backend_model (role "advance") (the role\'s ACP model; pass a model flag in backend_args) is not implemented here and is ignored',
    'role[9].backend_model (role "merger")',
  ],
  autorigor: [
    'backend.kind = "pi" is not implemented here; running {agent} as a command backend instead (ignoring backend.trust_all_tools, backend.model)',
    'role[0].backend_kind = "pi" (role "explorer") is not implemented here; the role runs backend.command as a command backend instead',
    'role[2].backend_kind = "claude-sdk" (role "builder-opus") is not implemented here; the role runs its backend_command as a command backend instead',
    'role[5].backend_model (role "critic")',
  ],
};

describe("the public autoloop's 18 presets", () => {
  it("each starts and runs two iterations with a command agent, naming what it does not implement", async () => {
    const names = readdirSync(FIXTURES, { withFileTypes: true })
      .filter((d) => d.isDirectory())
      .map((d) => d.name);
    expect(names).toHaveLength(18);
    const bin = tempDir("autoloop-public-agent-");
    const agent = join(bin, "agent.sh");
    writeFileSync(agent, AGENT);
    chmodSync(agent, 0o755);
    const runs = await Promise.all(
      names.map(async (name) => {
        const dir = tempDir();
        const r = await autoloop(
          [
            "run",
            join(FIXTURES, name),
            "objective",
            "--max-iterations",
            "2",
            "--set",
            `backend.command=${agent}`,
            "--quiet",
          ],
          { cwd: dir },
        );
        return { name, dir, r };
      }),
    );
    for (const { name, dir, r } of runs) {
      // Completed (automerge: one iteration, its role emits the completion event), or stopped at the limit.
      expect([0, 3], `${name}: ${r.stderr}`).toContain(r.exitCode);
      const journal = journalOf(dir);
      expect(journal[0]?.topic, name).toBe("loop.start");
      const emitted = journal.filter((x) => x.shape === "agent" && x.source === "agent");
      expect(emitted.length, `${name}: ${r.stderr}`).toBeGreaterThan(0);
      const end = journal.at(-1);
      expect([end?.topic, field(end, "reason")], name).toEqual(
        name === "automerge"
          ? ["loop.complete", "completion_event"]
          : ["loop.stop", "max_iterations"],
      );
      // Its [hooks] run here: autowiki's strict pre_run bootstrap (a stand-in in the fixture).
      if (name === "autowiki")
        expect(
          journal.find((x) => x.topic === "hook.output" && field(x, "hook") === "pre_run"),
          name,
        ).toMatchObject({ fields: { exit_code: 0, output: "okf-init stand-in" } });
      for (const warning of EXPECTED[name] ?? [])
        expect(r.stderr, name).toContain(warning.replace("{agent}", JSON.stringify(agent)));
      // Nothing silently dropped: whatever stderr warns is a named key, each line once.
      const lines = r.stderr.split("\n").filter((l) => l.startsWith("autoloop: preset"));
      expect(new Set(lines).size, name).toBe(lines.length);
    }
  });
});

describe("the public autofix preset's gate", () => {
  it("holds fix.verified without its evidence: fix.verify.blocked is journaled and routed to the verifier", async () => {
    const bin = tempDir("autoloop-public-agent-");
    const agent = join(bin, "agent.sh");
    // Each role emits its first event, with no evidence at all.
    writeFileSync(
      agent,
      `#!/bin/sh\n[ "$AUTOLOOP_REVIEW_MODE" = metareview ] || "$AUTOLOOP_BIN" emit "\${AUTOLOOP_ALLOWED_EVENTS%%,*}" "done"\nprintf '%s\\n' '\`\`\`json' '{"verdict": "CONTINUE", "confidence": 0.9, "reasoning": "ok"}' '\`\`\`'\n`,
    );
    chmodSync(agent, 0o755);
    const dir = tempDir();
    const r = await autoloop(
      [
        "run",
        join(FIXTURES, "autofix"),
        "fix the bug",
        "--max-iterations",
        "4",
        "--set",
        `backend.command=${agent}`,
        "--quiet",
      ],
      { cwd: dir },
    );
    expect(r.exitCode, r.stderr).toBe(3);
    const journal = journalOf(dir);
    const routed = journal
      .filter((x) => x.topic === "iteration.start")
      .map((x) => [field(x, "recent_event"), field(x, "suggested_roles")]);
    expect(routed).toEqual([
      ["loop.start", "diagnoser"],
      ["cause.found", "fixer"],
      ["fix.applied", "verifier"],
      ["fix.verify.blocked", "verifier"],
    ]);
    const blocked = journal.find((x) => x.topic === "fix.verify.blocked");
    expect(blocked?.shape === "system" && blocked.fields).toEqual({
      gated_event: "fix.verified",
      missing_evidence: "tests,coverage",
      evidence_type: "test,coverage",
      required_evidence: "tests,coverage",
      summary: "done",
    });
    expect(journal.some((x) => x.topic === "fix.verified")).toBe(false);
  });
});
