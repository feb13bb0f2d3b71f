// `/runs/<run-id>` and `/incidents/<slug>`: one run (launch, outcome, tasks, its iterations
// or, with `?raw=1`, its journal's records; output tail) and one incident (fields and
// changelog).

import type { TaskEntry } from "../harness/tasks/entry.js";
import type { Incident } from "../incidents/record.js";
import type { RunDetail, UnreadableFile } from "../operator/run-detail.js";
import { costText, usd } from "../scheduler/budget/spend.js";
import type { RunSummary } from "../scheduler/ledger/events.js";
import { Html, html, when } from "./html.js";
import { iterationsSection } from "./iterations-view.js";
import { actionForm, layout, type PageContext, statusText, textForm } from "./layout.js";
import { renderMarkdown } from "./markdown.js";

const RUNNING = new Set(["pending", "running"]);

function taskList(tasks: TaskEntry[]) {
  return html`<ul>${tasks.map((t) => html`<li><code>${t.id}</code> ${t.text}${t.priority !== "normal" ? html` <span class="muted">(${t.priority})</span>` : ""}</li>`)}</ul>`;
}

/** Said where a file's section is, when the run left something there the page cannot read. */
function unreadableNote(d: RunDetail, file: UnreadableFile["file"]) {
  const u = d.unreadable.find((x) => x.file === file);
  return u && html`<p class="muted">${file}: could not be read (${u.why})</p>`;
}

/** What the run spent, and the ceiling its schedule's budget gave it. */
function runCost(s: RunSummary) {
  const ceiling =
    s.budgetUsd !== undefined
      ? html` <span class="muted">(its budget allowed ${usd(s.budgetUsd)})</span>`
      : "";
  if (s.costUsd !== undefined)
    return html`<dt>Cost</dt><dd>${costText(s)} <span class="muted">${(s.tokens ?? 0).toLocaleString("en-US")} tokens</span>${ceiling}</dd>`;
  if (s.status === "running" || s.status === "pending")
    return ceiling === "" ? "" : html`<dt>Cost</dt><dd>running${ceiling}</dd>`;
  if (s.status === "skipped") return "";
  return html`<dt>Cost</dt><dd>unknown <span class="muted">(the agent reported no usage)</span>${ceiling}</dd>`;
}

/** The pull request the run's commits went to: a link only when it is a web address. */
function pullRequestLink(s: RunSummary) {
  const url = s.pullRequest;
  if (url === undefined) return "";
  const link = /^https?:\/\//.test(url) ? html`<a href="${url}">${url}</a>` : url;
  return html`<dt>Pull request</dt><dd>${link}</dd>`;
}

/** The run's records as they are in the journal (`?raw=1`), the last ones first cut short. */
function journalTable(d: RunDetail): Html {
  const s = d.summary;
  return html`<h2>Journal</h2>
${unreadableNote(d, "journal") ?? (d.journal.lines.length === 0 ? html`<p class="muted">No journal records.</p>` : html`${d.journal.omitted > 0 ? html`<p class="muted">The last ${d.journal.lines.length} records (${d.journal.omitted} earlier ones not shown).</p>` : ""}${d.journal.truncated ? html`<p class="muted">The journal goes on past what the page reads; <code>autoloop inspect journal --run ${s.runId}</code> shows all of it.</p>` : ""}<table><thead><tr><th scope="col">Time</th><th scope="col">Iteration</th><th scope="col">Topic</th><th scope="col">Text</th></tr></thead><tbody>${d.journal.lines.map((l) => html`<tr><td><time datetime="${l.ts}">${l.ts.slice(11, 19)}</time></td><td>${l.iteration ?? ""}${l.run !== s.runId ? html` <span class="muted">${l.run.slice(s.runId.length + 1)}</span>` : ""}</td><td><code>${l.topic}</code></td><td>${l.text.length > 600 ? `${l.text.slice(0, 600)}…` : l.text}</td></tr>`)}</tbody></table>`)}`;
}

/** The page's two views of the run, and its journal as a file. */
function views(base: string, raw: boolean): Html {
  const current = (on: boolean) => (on ? new Html(' aria-current="page"') : "");
  return html`<nav class="views" aria-label="Views of the run"><a href="${base}"${current(!raw)}>Iterations</a> · <a href="${base}?raw=1"${current(raw)}>Raw journal</a> · <a href="${base}/journal.jsonl" download>Download the journal</a> <span class="muted">(JSON lines)</span></nav>`;
}

export function runPage(d: RunDetail, ctx: PageContext, raw = false): string {
  const s = d.summary;
  const base = `/runs/${encodeURIComponent(s.runId)}`;
  const running = RUNNING.has(s.status);
  const duration = s.durationMs === undefined ? "" : `${Math.round(s.durationMs / 100) / 10} s`;
  const body = html`<h1>Run <code>${s.runId}</code></h1>
<dl class="fields">
<dt>Schedule</dt><dd>${s.schedule}</dd>
<dt>Status</dt><dd>${statusText(s.status, s.stopReason ?? s.skipCause)}${s.detail ? html` — ${s.detail}` : ""}</dd>
<dt>Trigger</dt><dd>${s.trigger ?? d.launch?.trigger ?? ""}${s.hookId ? html` <span class="muted">(delivery ${s.hookId})</span>` : ""}</dd>
${s.attempt !== undefined ? html`<dt>Attempt</dt><dd>${s.attempt} of its slot; the first was <a href="/runs/${encodeURIComponent(s.parentRunId ?? "")}"><code>${s.parentRunId ?? ""}</code></a></dd>` : ""}
<dt>Slot</dt><dd>${when(s.slot, ctx.now)}</dd>
<dt>Started</dt><dd>${when(s.startedAt, ctx.now)}</dd>
<dt>Finished</dt><dd>${when(s.finishedAt, ctx.now)}${duration ? html` <span class="muted">after ${duration}</span>` : ""}</dd>
${runCost(s)}
${pullRequestLink(s)}
${s.exitCode !== undefined ? html`<dt>Exit code</dt><dd>${s.exitCode}${s.signal ? ` (${s.signal})` : ""}</dd>` : ""}
${d.launch ? html`<dt>Command</dt><dd><code>${d.launch.argv.join(" ")}</code></dd><dt>Directory</dt><dd><code>${d.launch.cwd}</code></dd>` : ""}
${d.started ? html`<dt>Process</dt><dd>pid ${d.started.pid}</dd><dt>Journal</dt><dd><code>${d.started.journalPath}</code></dd>` : ""}
</dl>
${d.question ? html`<section aria-labelledby="question"><h2 id="question">The run asks</h2><blockquote>${d.question.question}</blockquote><p class="muted">Question ${d.question.questionId}, asked ${when(d.question.askedAt, ctx.now)}${d.question.timeoutAt ? html`; it waits until ${when(d.question.timeoutAt, ctx.now)}` : ""}.</p>${textForm(`/runs/${encodeURIComponent(s.runId)}/answer`, "Send the answer", { id: "answer", label: "Your answer" }, ctx)}</section>` : ""}
${running ? html`<details><summary>Guide this run</summary>${textForm(`/runs/${encodeURIComponent(s.runId)}/guide`, "Send guidance", { id: "guidance", label: "Guidance for its next iteration (its current turn is stopped)" }, ctx)}</details>` : ""}
${running ? html`<p>${actionForm(`/runs/${encodeURIComponent(s.runId)}/stop`, "Stop this run", ctx, { danger: true })}</p>` : ""}
${views(base, raw)}
<h2>Tasks</h2>
${unreadableNote(d, "tasks") ?? (d.tasks === undefined ? html`<p class="muted">No tasks recorded.</p>` : html`<p>${d.tasks.open.length} open, ${d.tasks.done.length} done.</p>${d.tasks.open.length > 0 ? html`<h3>Open</h3>${taskList(d.tasks.open)}` : ""}${d.tasks.done.length > 0 ? html`<h3>Done</h3>${taskList(d.tasks.done)}` : ""}`)}
${
  raw
    ? journalTable(d)
    : html`<h2>Iterations</h2>
${unreadableNote(d, "journal") ?? iterationsSection(d.iterations, s.runId, `${base}?raw=1`, ctx.now)}`
}
<h2>Output</h2>
${unreadableNote(d, "output") ?? (d.output === undefined ? html`<p class="muted">No output.</p>` : html`${d.output.omittedBytes > 0 ? html`<p class="muted">The last part of <code>${d.output.path}</code> (${d.output.omittedBytes} bytes before it not shown).</p>` : ""}<pre tabindex="0" aria-label="Output of the run">${d.output.text}</pre>`)}
<h2>Ledger</h2>
<table><thead><tr><th scope="col">Time</th><th scope="col">Event</th></tr></thead><tbody>${d.events.map((e) => html`<tr><td><time datetime="${e.ts}">${e.ts}</time></td><td>${e.event}</td></tr>`)}</tbody></table>`;
  return layout(`Run ${s.runId}`, body, ctx);
}

export function incidentPage(i: Incident, ctx: PageContext): string {
  const base = `/incidents/${encodeURIComponent(i.slug)}`;
  const body = html`<h1>${i.name}</h1>
<dl class="fields">
<dt>Incident</dt><dd><code>${i.slug}</code></dd>
<dt>Status</dt><dd>${i.status}</dd>
<dt>Priority</dt><dd>${i.priority}</dd>
<dt>Opened</dt><dd>${when(i.createdAt, ctx.now)}</dd>
<dt>Updated</dt><dd>${when(i.updatedAt, ctx.now)}</dd>
${i.schedule ? html`<dt>Schedule</dt><dd>${i.schedule}</dd>` : ""}
${i.runId ? html`<dt>Run</dt><dd><a href="/runs/${encodeURIComponent(i.runId)}">${i.runId}</a></dd>` : ""}
${i.tags.length > 0 ? html`<dt>Tags</dt><dd>${i.tags.join(", ")}</dd>` : ""}
</dl>
${i.status !== "resolved" ? html`<p>${i.status === "open" ? actionForm(`${base}/ack`, "Acknowledge", ctx, { note: "ack-note" }) : ""}</p><p>${actionForm(`${base}/resolve`, "Resolve", ctx, { note: "resolve-note" })}</p>` : ""}
<h2>Description and changelog</h2>
<div class="incident-body">${renderMarkdown(i.body)}</div>`;
  return layout(i.name, body, ctx);
}

export function notFoundPage(what: string, ctx: PageContext): string {
  return layout(
    "Not found",
    html`<h1>Not found</h1><p>${what}</p><p><a href="/">Back to the overview</a></p>`,
    ctx,
  );
}
