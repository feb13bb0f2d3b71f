// The status page's two static files: a small stylesheet and the script that keeps a page
// current from the server-sent events. The page reads fine without either.

export const STYLESHEET = `:root { color-scheme: light; --fg: #1f2328; --muted: #57606a; --line: #d0d7de;
  --bg: #ffffff; --panel: #f6f8fa; --link: #0550ae; --ok: #1a7f37; --bad: #cf222e;
  --late: #9a3412; --run: #0550ae; --skip: #57606a; --stop: #6639ba; }
* { box-sizing: border-box; }
body { margin: 0; font: 15px/1.45 system-ui, -apple-system, "Segoe UI", sans-serif; color: var(--fg); background: var(--bg); }
header { display: flex; gap: 1.5rem; align-items: center; padding: .6rem 1.25rem; border-bottom: 1px solid var(--line); background: var(--panel); }
header .brand { font-weight: 700; color: var(--fg); text-decoration: none; }
header #live { margin-left: auto; font-size: .85rem; }
main { padding: 1rem 1.25rem 2rem; max-width: 90rem; }
h1 { font-size: 1.35rem; margin: .25rem 0 1rem; }
h2 { font-size: 1.1rem; margin: 1.75rem 0 .5rem; }
a { color: var(--link); }
a:focus-visible, button:focus-visible, input:focus-visible { outline: 3px solid #0969da; outline-offset: 2px; }
table { border-collapse: collapse; width: 100%; }
th, td { text-align: left; padding: .35rem .6rem; border-bottom: 1px solid var(--line); vertical-align: top; }
thead th { font-size: .8rem; text-transform: uppercase; letter-spacing: .03em; color: var(--muted); }
tbody th { font-weight: 600; }
code, pre { font: 13px/1.4 ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; }
td code { white-space: nowrap; }
pre { background: var(--panel); border: 1px solid var(--line); padding: .75rem; overflow: auto; max-height: 32rem; white-space: pre-wrap; word-break: break-word; }
.muted { color: var(--muted); }
.summary { display: flex; gap: 1rem; flex-wrap: wrap; margin: 0 0 1rem; padding: 0; list-style: none; }
.summary li { background: var(--panel); border: 1px solid var(--line); border-radius: 6px; padding: .4rem .8rem; }
.summary strong { font-size: 1.2rem; margin-right: .3rem; }
.notice, .error, .banner { border-radius: 6px; padding: .5rem .8rem; margin: 0 0 1rem; border: 1px solid; }
.notice { background: #dafbe1; border-color: #4ac26b; }
.error { background: #ffebe9; border-color: #ff8182; }
.banner { background: #fff8c5; border-color: #d4a72c; }
.marks { display: flex; gap: 3px; flex-wrap: wrap; }
.mark { display: inline-block; min-width: 1.3rem; height: 1.3rem; line-height: 1.3rem; text-align: center; border-radius: 3px; color: #fff; font-size: .75rem; font-weight: 700; text-decoration: none; }
.mark.completed { background: var(--ok); } .mark.failed { background: var(--bad); }
.mark.timed_out { background: var(--late); } .mark.running, .mark.pending { background: var(--run); }
.mark.skipped { background: var(--skip); } .mark.killed, .mark.interrupted { background: var(--stop); }
.state { font-weight: 600; } .state.failing { color: var(--bad); } .state.paused, .state.disabled { color: var(--muted); }
.status-completed { color: var(--ok); } .status-failed, .status-timed_out { color: var(--bad); }
.iteration { border: 1px solid var(--line); border-radius: 6px; padding: .5rem .9rem .6rem; margin: 0 0 .75rem; }
.iteration h3 { font-size: 1rem; margin: .1rem 0 .2rem; }
.iteration .role { font-weight: 500; font-size: .85rem; background: var(--panel); border: 1px solid var(--line); border-radius: 1rem; padding: 0 .5rem; margin-left: .4rem; }
.iteration-body { display: grid; grid-template-columns: minmax(0, 2fr) minmax(0, 3fr); gap: 0 1.25rem; }
@media (max-width: 60rem) { .iteration-body { grid-template-columns: minmax(0, 1fr); } }
.iteration .facts { margin: 0 0 .4rem; color: var(--muted); font-size: .85rem; }
.iteration ul.events, .iteration ul.verdict { margin: .2rem 0; padding-left: 1.2rem; }
.iteration ul.verdict { list-style: none; padding-left: 0; font-size: .9rem; }
.iteration .refused { color: var(--late); }
.iteration .question { border-left: 3px solid var(--run); padding: 0 .7rem; margin: .4rem 0; }
.iteration .question p { margin: .2rem 0; }
.iteration pre.answer { max-height: 20rem; margin: .2rem 0 .4rem; }
.iteration details { margin: .3rem 0; } .iteration details ul { margin: .2rem 0; padding-left: 1.2rem; list-style: none; }
.task-done { color: var(--muted); } .task-removed { text-decoration: line-through; color: var(--muted); }
nav.views { margin: 1.25rem 0 0; } nav.views a[aria-current] { font-weight: 700; color: var(--fg); text-decoration: none; }
form.inline { display: inline; margin: 0 .15rem 0 0; }
button { font: inherit; font-size: .85rem; padding: .15rem .6rem; border: 1px solid var(--line); border-radius: 6px; background: #f6f8fa; color: var(--fg); cursor: pointer; }
button:hover { background: #eaeef2; }
button.danger { color: var(--bad); }
dl.fields { display: grid; grid-template-columns: max-content 1fr; gap: .25rem 1rem; margin: 0; }
dl.fields dt { color: var(--muted); } dl.fields dd { margin: 0; }
.sr-only { position: absolute; width: 1px; height: 1px; overflow: hidden; clip: rect(0 0 0 0); white-space: nowrap; }
figure { margin: 0 0 1rem; } figcaption { font-size: .85rem; margin: .25rem 0; }
svg.spend-chart, svg.run-bars { max-width: 100%; height: auto; }
.trend { display: flex; gap: 1.5rem; flex-wrap: wrap; align-items: flex-start; }
.trend .figures { flex: 1 1 22rem; max-height: 19rem; overflow: auto; border: 1px solid var(--line); }
.trend .figures td, .trend .figures th { padding: .2rem .5rem; white-space: nowrap; }
.trend .figures thead th { position: sticky; top: 0; background: var(--bg); }
.legend { display: flex; gap: .4rem 1rem; flex-wrap: wrap; margin: .25rem 0; padding: 0; list-style: none; font-size: .85rem; }
.budgets { font-size: .85rem; margin: .5rem; padding-left: 1rem; }
label { margin-right: .4rem; } input[type=text], input[type=search] { font: inherit; padding: .15rem .4rem; border: 1px solid #8c959f; border-radius: 6px; }
`;

/**
 * Listens to /events and, on each update, fetches the page again and swaps its <main> in
 * place: no reload, and not while the operator is typing into a field of it.
 */
export const LIVE_SCRIPT = `(() => {
  const live = document.getElementById("live");
  if (!live || !("EventSource" in window) || !window.fetch) return;
  let timer, busy = false, again = false;
  const say = (text) => { if (live.textContent !== text) live.textContent = text; };
  // Someone is writing: in a focused field, or an answer or guidance not sent yet.
  const typing = () => {
    const el = document.activeElement;
    if (el && el.matches("input[type=text], input[type=search], textarea") && el.value !== "")
      return true;
    return [...document.querySelectorAll("main textarea")].some((t) => t.value !== "");
  };
  // Where keyboard focus was, so that it is given back after the swap: by id, by link, or
  // by a form's action and its button's text.
  const focusKey = () => {
    const el = document.activeElement;
    if (!el || !document.getElementById("main")?.contains(el)) return null;
    if (el.id) return "#" + CSS.escape(el.id);
    if (el.matches("a[href]")) return 'a[href="' + CSS.escape(el.getAttribute("href")) + '"]';
    if (el.form) return { action: el.form.getAttribute("action"), text: el.textContent };
    return null;
  };
  const refocus = (key) => {
    if (key === null) return;
    const el = typeof key === "string" ? document.querySelector(key)
      : [...document.querySelectorAll("main form")].filter((f) => f.getAttribute("action") === key.action)
          .map((f) => [...f.querySelectorAll("button")].find((b) => b.textContent === key.text)).find(Boolean);
    if (el) el.focus({ preventScroll: true });
  };
  async function refresh() {
    if (busy) { again = true; return; }
    if (typing()) { later(2000); return; }
    busy = true;
    try {
      const res = await fetch(location.href, { cache: "no-store", headers: { accept: "text/html" } });
      if (!res.ok) return;
      const doc = new DOMParser().parseFromString(await res.text(), "text/html");
      const next = doc.getElementById("main"), current = document.getElementById("main");
      // Typing began while the page was fetched: the swap waits, the text stays.
      if (typing()) { later(2000); return; }
      if (next && current) {
        const key = focusKey();
        // What the reader unfolded (a long answer, a step's tasks) stays unfolded.
        const unfolded = [...current.querySelectorAll("details[open][id]")].map((d) => d.id);
        current.replaceWith(document.adoptNode(next));
        for (const id of unfolded) document.getElementById(id)?.setAttribute("open", "");
        refocus(key);
        document.title = doc.title;
        const root = document.documentElement;
        root.dataset.updates = String(Number(root.dataset.updates || 0) + 1);
      }
    } catch { say("Live updates paused (the daemon did not answer)"); }
    finally { busy = false; if (again) { again = false; later(1000); } }
  }
  const later = (ms) => { clearTimeout(timer); timer = setTimeout(refresh, ms); };
  const source = new EventSource("/events");
  source.addEventListener("open", () => say("Live"));
  source.addEventListener("error", () => say("Reconnecting…"));
  source.addEventListener("update", () => { say("Live"); later(150); });
})();
`;
