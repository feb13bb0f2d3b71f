// Every bundled preset is consistent with its topology: a role is only ever told to emit
// events it may emit, and the agent may always run the event tool.
import { readdirSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { AGENT_IDS, AGENTS, agentArgs } from "../../src/harness/agents/index.js";
import { renderPrompt } from "../../src/harness/loop/prompt.js";
import { loadPreset } from "../../src/harness/preset/preset.js";
import { allowedEvents } from "../../src/harness/preset/topology.js";
import { runPaths } from "../../src/harness/run-paths.js";
import { RunView } from "../../src/harness/run-view.js";
import { ROOT } from "../helpers/cli.js";

const PRESETS = readdirSync(join(ROOT, "presets"));

/** Event topics the text tells its reader to emit: `emit <topic>` and `<topic>` in backticks. */
function mentionedTopics(text: string, known: ReadonlySet<string>): string[] {
  const found = new Set<string>();
  for (const m of text.matchAll(/emit\s+`?([A-Za-z0-9][A-Za-z0-9._:-]*)/g)) found.add(m[1]!);
  for (const m of text.matchAll(/`([A-Za-z0-9][A-Za-z0-9._:-]*)`/g))
    if (known.has(m[1]!)) found.add(m[1]!);
  return [...found].filter((t) => known.has(t));
}

describe.each(PRESETS)("bundled preset %s", (name) => {
  const preset = loadPreset(join(ROOT, "presets", name));
  const { topology } = preset;
  const ev = preset.config.event_loop;
  const known = new Set([
    ...topology.roles.flatMap((r) => r.emits),
    ev.completion_event,
    ...ev.required_events,
    ...topology.handoff.keys(),
  ]);
  known.delete("loop.start");

  it("tells each role to emit only events that role may emit", () => {
    for (const role of topology.roles) {
      const topics = mentionedTopics(role.prompt, known);
      expect(
        topics.filter((t) => !role.emits.includes(t)),
        `role ${role.id}`,
      ).toEqual([]);
    }
    // harness.md goes to every role: it may name no event at all.
    expect(mentionedTopics(preset.harnessInstructions, known)).toEqual([]);
  });

  it("renders prompts that never offer a role an event it may not emit", () => {
    const paths = runPaths("/tmp/project", "run-1", preset.config, {});
    const view = new RunView("/nonexistent/journal.jsonl", "run-1", 0);
    for (const role of topology.roles) {
      const allowed = allowedEvents(topology, [role.id]);
      const prompt = renderPrompt({
        preset,
        paths,
        runId: "run-1",
        objective: "x",
        iteration: 1,
        maxIterations: 3,
        view,
        suggestedRoles: [role.id],
        allowedEvents: allowed,
        tasks: { open: [], done: [] },
        history: [],
        completionNote: "",
      });
      const offered = [...prompt.matchAll(new RegExp(`${paths.toolPath} emit ([^ <]+) `, "g"))].map(
        (m) => m[1],
      );
      // The ask event is always accepted, whatever the routing: any role may ask a human.
      for (const topic of offered.filter((t) => t !== ev.ask_event))
        expect(allowed, `role ${role.id} offered ${topic}`).toContain(topic);
      if (!allowed.includes(ev.completion_event))
        expect(prompt, `role ${role.id}`).not.toContain(`Completion promise fallback`);
    }
  });

  it("lets every known agent run the event tool", () => {
    const backend = preset.config.backend;
    for (const id of AGENT_IDS.filter((a) => a !== "command")) {
      const args = agentArgs(AGENTS[id], [...(backend.agent_args[id] ?? []), ...backend.args]);
      if (id !== "claude") continue; // codex and gemini run any command in the workspace
      const rules: string[] = [];
      args.forEach((a, i) => {
        if (a === "--allowedTools" || a === "--allowed-tools")
          for (let j = i + 1; j < args.length && !args[j]!.startsWith("-"); j++)
            rules.push(...args[j]!.split(","));
      });
      expect(
        rules.some((r) => r === "Bash" || r === "Bash({{TOOL_PATH}} *)"),
        `${name}: claude --allowedTools ${rules.join(",")}`,
      ).toBe(true);
    }
  });
});
