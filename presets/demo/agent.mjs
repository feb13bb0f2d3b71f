#!/usr/bin/env node
// The demo agent: a deterministic script standing in for an LLM agent CLI. It reads the
// prompt on stdin, acts as the suggested role, and uses the event tool like a real agent.
import { spawn, spawnSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";

const env = process.env;
const prompt = readFileSync(0, "utf8");
const iteration = Number(env.AUTOLOOP_ITERATION ?? "1");
const role = (env.AUTOLOOP_ALLOWED_ROLES ?? "").split(",")[0] || "builder";
const objective = (/Objective:\n(.*)/.exec(prompt)?.[1] ?? "").toLowerCase();
const modes = ["stuck", "promise", "invalid", "fail", "hang", "complete"];
const mode =
  env.AUTOLOOP_DEMO_MODE ||
  (/\bsign-?off\b/.test(objective) ? "signoff" : undefined) ||
  modes.find((m) => new RegExp(`\\b${m}\\b`).test(objective)) ||
  "complete";
const delay = Number(env.AUTOLOOP_DEMO_DELAY_MS ?? "0");

function tool(...args) {
  const r = spawnSync(env.AUTOLOOP_BIN, args, { encoding: "utf8" });
  process.stdout.write(`$ autoloops ${args.join(" ")}\n${r.stdout}${r.stderr}`);
  return { code: r.status, out: r.stdout.trim() };
}

function openTaskIds() {
  const r = spawnSync(env.AUTOLOOP_BIN, ["task", "list", "--json"], { encoding: "utf8" });
  return JSON.parse(r.stdout).open.map((t) => t.id);
}

function sleep(ms) {
  if (ms > 0) Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

sleep(delay);
console.log(`demo agent (${mode}) iteration ${iteration} as ${role}`);

if (mode === "hang") {
  // A grandchild that would outlive us if the harness only killed its direct child.
  const child = spawn(process.execPath, ["-e", "setInterval(() => {}, 1000)"], { stdio: "ignore" });
  writeFileSync(`${env.AUTOLOOP_STATE_DIR}/grandchild.pid`, String(child.pid));
  setInterval(() => {}, 1000);
} else if (mode === "fail" && iteration >= 2) {
  console.error("error: the demo agent failed on purpose (mode fail)");
  process.exit(1);
} else if (role === "builder") {
  if (iteration === 1) {
    tool("task", "add", "--priority", "high", "write the report");
    tool(
      "task",
      "add",
      mode === "stuck"
        ? "get sign-off from a human who never answers"
        : mode === "signoff"
          ? "get a human's sign-off to ship"
          : "check the numbers",
    );
  }
  if (mode === "invalid" && iteration === 1)
    tool("emit", "review.approved", "not an event this topology allows");
  else tool("emit", "build.done", `iteration ${iteration}: built what the objective asks`);
} else {
  const open = openTaskIds();
  if (mode === "stuck") {
    // Finishes what it can; the sign-off never comes, so the gate refuses every attempt.
    if (open.includes("task-1")) tool("task", "complete", "task-1");
    tool("emit", "task.complete", `attempt ${iteration}`);
  } else if (mode === "signoff") {
    // Asks a human for the sign-off, once. A "yes" closes the last task and completes;
    // without one (no answer in time, or a "no"), the gate refuses every attempt.
    if (open.includes("task-1")) tool("task", "complete", "task-1");
    const answer = /Human response to "[^\n]*?": (.*)/.exec(prompt)?.[1] ?? "";
    const asked = /emitted [^\n]*human\.ask/.test(prompt);
    if (/\b(yes|ok|approved?|sign(ed)?[ -]?off|ship it)\b/i.test(answer)) {
      if (open.includes("task-2")) tool("task", "complete", "task-2");
      tool("emit", "task.complete", `signed off by a human: ${answer}`);
    } else if (!asked && answer === "")
      tool("emit", "human.ask", "May I ship the release? Answer yes to sign off.");
    else tool("emit", "task.complete", `attempt ${iteration}`);
  } else if (mode === "promise") {
    if (iteration > 2) for (const id of open) tool("task", "complete", id);
    console.log(`iteration ${iteration}: LOOP_COMPLETE`);
  } else {
    // First knock at the gate with tasks open (refused), then finish them and complete.
    if (iteration > 2) for (const id of open) tool("task", "complete", id);
    tool("emit", "task.complete", `iteration ${iteration}: all tasks done`);
  }
}
