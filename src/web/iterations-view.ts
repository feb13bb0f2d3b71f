// A run's iterations on its page: one card each with its role, events, the gate's verdict,
// its question, the agent's answer (first lines shown, the rest folded) and the tasks after
// it. All of it is the run's text: it goes through `html`, which escapes it.
import type { ClippedText } from "../operator/clipped-text.js";
import type {
  IterationOutcome,
  IterationQuestion,
  IterationStep,
  RunIterations,
} from "../operator/run-iterations.js";
import type { TaskSnapshot } from "../operator/tasks-by-iteration.js";
import { type Html, html, when } from "./html.js";

const lineCount = (text: string) => text.replace(/\n$/, "").split("\n").length;

/** The agent's answer: its first lines, the rest behind a <details>, and what was cut. */
function answerBlock(a: ClippedText, id: string, rawHref: string): Html | string {
  if (a.head === "" && a.rest === "") return html`<p class="muted">No output.</p>`;
  const rest =
    a.rest === ""
      ? ""
      : html`<details id="${id}-more"><summary>${lineCount(a.rest)} more lines</summary><pre class="answer">${a.rest}</pre></details>`;
  const cut =
    a.omittedBytes > 0
      ? html`<p class="muted">Truncated: ${a.omittedBytes.toLocaleString("en-US")} more bytes; see the <a href="${rawHref}">raw journal</a>.</p>`
      : "";
  return html`<pre class="answer" aria-label="The agent's answer">${a.head.replace(/\n$/, "")}</pre>${rest}${cut}`;
}

function outcomeText(o: IterationOutcome): Html | string {
  switch (o.kind) {
    case "completed":
      return html`<li class="status-completed">The run completed (${o.reason})</li>`;
    case "stopped":
      return html`<li class="status-${o.class === "stopped" ? "stopped" : "failed"}">The run ${o.class === "stopped" ? "stopped" : o.class} (${o.reason})</li>`;
    case "running":
      return html`<li>Running</li>`;
    default:
      return "";
  }
}

/** What the gate and the run made of the iteration: refusals, events not allowed, the end. */
function verdict(s: IterationStep): Html | string {
  const refused = s.refused.map(
    (r) =>
      html`<li class="refused">Gate refused <code>${r.blocked}</code>: ${r.openTasks.length} task${r.openTasks.length === 1 ? "" : "s"} open (${r.openTasks.join(", ")})</li>`,
  );
  const invalid = s.invalid.map(
    (t) => html`<li class="refused">Not allowed here: <code>${t}</code></li>`,
  );
  const review = s.review
    ? html`<li>Metareview: ${s.review.verdict}${s.review.reasoning ? html` <span class="muted">— ${s.review.reasoning}</span>` : ""}</li>`
    : "";
  const items = [review, ...refused, ...invalid, outcomeText(s.outcome)].filter((x) => x !== "");
  return items.length === 0 ? "" : html`<ul class="verdict" aria-label="Verdict">${items}</ul>`;
}

function question(q: IterationQuestion, now: number): Html {
  const st = q.state;
  const answer =
    st.kind === "answered"
      ? html`<p><strong>Answer</strong> <span class="muted">from ${st.by || "someone"}, ${when(st.at, now)}</span>: ${st.answer}</p>`
      : st.kind === "timed_out"
        ? html`<p class="muted">No answer in time (${when(st.at, now)}); the run went on.</p>`
        : st.kind === "waiting"
          ? html`<p class="muted">Waiting for an answer.</p>`
          : html`<p class="muted">Never answered: the run ended first.</p>`;
  return html`<div class="question"><p><strong>Asked</strong>: ${q.question}</p>${answer}</div>`;
}

const CHANGE_WORD = {
  added: "added",
  done: "done",
  reopened: "reopened",
  edited: "edited",
  removed: "removed",
};

function tasksBlock(t: TaskSnapshot, id: string): Html {
  const changed = t.tasks.filter((x) => x.change !== undefined);
  const items = t.tasks.map(
    (x) =>
      html`<li class="task-${x.change === "removed" ? "removed" : x.status}"><span aria-hidden="true">${x.status === "done" ? "☑" : "☐"}</span> <code>${x.id}</code> ${x.text}${x.priority !== "normal" ? html` <span class="muted">(${x.priority})</span>` : ""}${x.change ? html` <em>${CHANGE_WORD[x.change]}</em>` : ""}</li>`,
  );
  const summary = html`Tasks after it: ${t.open} open, ${t.done} done${changed.length > 0 ? html` — ${changed.map((x, i) => html`${i > 0 ? ", " : ""}${x.id} ${CHANGE_WORD[x.change!]}`)}` : ""}`;
  const more = t.omitted > 0 ? html`<li class="muted">${t.omitted} more</li>` : "";
  return html`<details class="tasks" id="${id}-tasks"><summary>${summary}</summary><ul>${items}${more}</ul></details>`;
}

function facts(s: IterationStep): Html {
  const parts: (Html | string)[] = [];
  if (s.after) parts.push(html`after <code>${s.after}</code>`);
  if (s.elapsedS !== undefined) parts.push(`${s.elapsedS.toFixed(1)} s`);
  if (s.exit && (s.exit.code !== "0" || s.exit.timedOut))
    parts.push(
      html`<span class="status-failed">${s.exit.timedOut ? "timed out" : `exit ${s.exit.code}`}</span>`,
    );
  if (s.usage) {
    parts.push(`${s.usage.tokens.toLocaleString("en-US")} tokens`);
    parts.push(s.usage.costUsd === undefined ? "cost unknown" : `$${s.usage.costUsd.toFixed(4)}`);
    if (s.usage.models.length > 0) parts.push(s.usage.models.join(", "));
  } else if (s.finishedAt) parts.push("no usage reported");
  return html`<p class="facts">${parts.map((p, i) => html`${i > 0 ? " · " : ""}${p}`)}</p>`;
}

function card(s: IterationStep, runId: string, rawHref: string, now: number): Html {
  const step = s.run === runId ? "" : `${s.run.slice(runId.length + 1)} · `;
  const id = `i-${s.run === runId ? "" : `${s.run.slice(runId.length + 1)}-`}${s.iteration}`;
  const events =
    s.events.length === 0
      ? html`<p class="muted">No events emitted.</p>`
      : html`<ul class="events" aria-label="Events emitted">${s.events.map((e) => html`<li><code>${e.topic}</code>${e.payload ? html` ${e.payload}` : ""}</li>`)}${s.omittedEvents > 0 ? html`<li class="muted">${s.omittedEvents} more (raw journal)</li>` : ""}</ul>`;
  return html`<section class="iteration" id="${id}" aria-labelledby="${id}-h">
<h3 id="${id}-h">${step}Iteration ${s.iteration} <span class="role">${s.roles || "no role"}</span></h3>
<div class="iteration-body"><div>
${facts(s)}
${events}
${verdict(s)}
${s.questions.map((q) => question(q, now))}
${s.tasks ? tasksBlock(s.tasks, id) : ""}
</div><div>${answerBlock(s.answer, id, rawHref)}</div></div>
</section>`;
}

export function iterationsSection(
  it: RunIterations,
  runId: string,
  rawHref: string,
  now: number,
): Html {
  if (it.steps.length === 0) return html`<p class="muted">No iterations yet.</p>`;
  const omitted =
    it.omitted > 0
      ? html`<p class="muted">The first ${it.omitted} iterations are not shown; the <a href="${rawHref}">raw journal</a> and the download have them.</p>`
      : "";
  return html`${omitted}<div class="iterations">${it.steps.map((s) => card(s, runId, rawHref, now))}</div>`;
}
