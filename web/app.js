// The page: picks files, asks the worker for views, shows them. Nothing is sent anywhere.
let worker = null;
const pending = new Map();
let nextId = 1;
let opened = null;
const shown = new Set();
// The flame graph asked for as soon as a recording opens, before the overview's counts (the
// worker answers in order): `show` takes it rather than asking again. Its arguments and the
// recording it is of, so a later choice or another file does not take it.
let early = null;

const $ = (id) => document.getElementById(id);

function ask(op, extra = {}) {
  const id = nextId++;
  return new Promise((resolve, reject) => {
    pending.set(id, { resolve, reject });
    worker.postMessage({ id, op, ...extra });
  });
}

function startWorker() {
  // The page's query goes to the worker (`?chunk=N`: the slice size in bytes, for the tests).
  worker = new Worker(`worker.js${location.search}`, { type: "module" });
  worker.onmessage = onMessage;
  worker.onerror = (e) => status(`the worker failed: ${e.message}`, true);
}

function onMessage(event) {
  const m = event.data;
  if (m.kind === "progress") {
    $("progress").hidden = false;
    $("progress").max = m.total;
    $("progress").value = m.done;
    status(`reading ${m.what}: ${mb(m.done)} of ${mb(m.total)}`);
    return;
  }
  const p = pending.get(m.id);
  pending.delete(m.id);
  if (m.fatal) {
    // The module aborted: a fresh one for the next recording.
    worker.terminate();
    opened = null;
    document.body.classList.remove("open");
    startWorker();
    status(m.error, true);
  }
  if (m.error !== undefined) p.reject(new Error(m.error));
  else p.resolve(m.result);
}
startWorker();

function mb(n) {
  return n < 1048576 ? `${(n / 1024).toFixed(1)} KB` : `${(n / 1048576).toFixed(1)} MB`;
}

function status(text, bad = false) {
  $("status").textContent = text;
  $("status").className = bad ? "bad" : "";
}

function table(rows, head) {
  const t = document.createElement("table");
  const tr = t.insertRow();
  for (const h of head) tr.appendChild(Object.assign(document.createElement("th"), { textContent: h }));
  for (const r of rows) {
    const row = t.insertRow();
    for (const c of r) row.insertCell().textContent = c;
  }
  return t;
}

/// An SVG with its own script (the flame graph's search and zoom) runs in a frame of its own;
/// without a height, the frame takes the picture's proportions (the timeline scales to its width).
function svgFrame(svg, height) {
  const f = document.createElement("iframe");
  f.src = URL.createObjectURL(new Blob([svg], { type: "image/svg+xml" }));
  const box = /viewBox="0 0 (\d+) (\d+)"/.exec(svg.slice(0, 2000));
  if (height) f.style.height = height;
  else if (box) f.style.aspectRatio = `${box[1]} / ${box[2]}`;
  return f;
}

async function openRecording(file) {
  shown.clear();
  for (const v of document.querySelectorAll(".view")) v.replaceChildren();
  $("symbols-log").textContent = "";
  try {
    const start = performance.now();
    opened = await ask("open", { file });
    $("progress").hidden = true;
    status(`${file.name}: ${mb(file.size)} read in ${Math.round(performance.now() - start)} ms`);
    document.body.classList.add("open");
    const compat = $("compat").value;
    early = { of: opened, compat, answer: ask("flamegraph", { args: { title: "Flame Graph", compat } }) };
    early.answer.catch(() => {}); // said by `show` when the view is opened
    showOverview(file.name);
    show(document.querySelector("nav button.on").dataset.view);
  } catch (e) {
    $("progress").hidden = true;
    status(`${file.name}: ${e.message}`, true);
  }
}

/// The overview: the header at once; the counts (a pass over every record) when the worker has
/// them, after the first flame graph.
function showOverview(name) {
  const v = $("overview");
  const of = opened;
  v.replaceChildren(
    Object.assign(document.createElement("h2"), { textContent: name }),
    Object.assign(document.createElement("p"), { textContent: "computing the counts…" }),
    Object.assign(document.createElement("pre"), { textContent: of.header }),
  );
  ask("stats").then(
    (r) => of === opened && showCounts(name, r.value),
    (e) => of === opened && v.replaceChildren(Object.assign(document.createElement("p"), { className: "bad", textContent: e.message })),
  );
}

function showCounts(name, s) {
  const v = $("overview");
  const events = Object.entries(s.samples_by_event).map(([e, n]) => [e, n.toLocaleString()]);
  const types = Object.entries(s.types).map(([t, n]) => [t, n.toLocaleString()]);
  v.replaceChildren(
    Object.assign(document.createElement("h2"), { textContent: name }),
    table(events, ["event", "samples"]),
    table(types, ["record type", "records"]),
    Object.assign(document.createElement("pre"), { textContent: opened.header }),
  );
  if (s.lost || s.lost_samples) v.prepend(Object.assign(document.createElement("p"), { textContent: `lost: ${s.lost} events, ${s.lost_samples} samples` }));
  // The reading's problems, each once (those met opening the file among them).
  const problems = s.diagnostics;
  if (problems.length) v.prepend(Object.assign(document.createElement("pre"), { className: "bad", textContent: problems.join("\n") }));
}

/// Fill view `name` (once per recording and set of symbol files).
async function show(name) {
  for (const b of document.querySelectorAll("nav button")) b.classList.toggle("on", b.dataset.view === name);
  for (const v of document.querySelectorAll(".view")) v.hidden = v.id !== name;
  if (!opened || shown.has(name) || name === "overview") return;
  shown.add(name);
  const v = $(name);
  v.replaceChildren(Object.assign(document.createElement("p"), { textContent: "computing…" }));
  try {
    if (name === "flamegraph") {
      const compat = $("compat").value;
      const first = early && early.of === opened && early.compat === compat ? early.answer : null;
      early = null;
      const r = await (first || ask("flamegraph", { args: { title: "Flame Graph", compat } }));
      v.replaceChildren(svgFrame(r.value, "80vh"), note(r.ms));
    } else if (name === "sched") {
      const lat = await ask("sched_latency", { args: { compat: $("sched-compat").value } });
      const tl = await ask("sched_timeline", { args: { width: Math.max(800, v.clientWidth - 40), rows: $("sched-rows").value } });
      v.replaceChildren(svgFrame(tl.value), Object.assign(document.createElement("pre"), { textContent: lat.value }), note(lat.ms + tl.ms));
    } else if (name === "block") {
      const lat = await ask("block_latency");
      const map = await ask("block_heatmap");
      const p = lat.value.percentiles_ns;
      const us = (ns) => (ns / 1000).toFixed(1);
      const rows = [["I/Os", p.count.toLocaleString()], ["min µs", us(p.min)], ["avg µs", us(p.avg)], ["p50 µs", us(p.p50)],
        ["p90 µs", us(p.p90)], ["p99 µs", us(p.p99)], ["p99.9 µs", us(p.p999)], ["max µs", us(p.max)]];
      v.replaceChildren(Object.assign(document.createElement("div"), { innerHTML: map.value }), table(rows, ["", "issue → complete"]),
        Object.assign(document.createElement("pre"), { textContent: lat.value.histogram_usecs }), note(lat.ms + map.ms));
    } else if (name === "wakeup") {
      const map = await ask("wakeup_heatmap");
      v.replaceChildren(Object.assign(document.createElement("div"), { innerHTML: map.value }), note(map.ms));
    }
  } catch (e) {
    v.replaceChildren(Object.assign(document.createElement("p"), { className: "bad", textContent: e.message }));
  }
}

function note(ms) {
  return Object.assign(document.createElement("p"), { className: "note", textContent: `computed in ${ms} ms` });
}

$("file").addEventListener("change", (e) => e.target.files[0] && openRecording(e.target.files[0]));
$("symbols").addEventListener("change", async (e) => {
  if (!opened) return status("open a recording first", true);
  try {
    const lines = await ask("symbols", { files: [...e.target.files] });
    $("symbols-log").textContent += lines.join("\n") + "\n";
    shown.delete("flamegraph"); // the one view that names frames
    early = null;
    show(document.querySelector("nav button.on").dataset.view);
  } catch (err) {
    status(err.message, true);
  }
});
for (const b of document.querySelectorAll("nav button")) b.addEventListener("click", () => show(b.dataset.view));
for (const [sel, view] of [["compat", "flamegraph"], ["sched-compat", "sched"], ["sched-rows", "sched"]]) {
  $(sel).addEventListener("change", () => { shown.delete(view); show(view); });
}
document.addEventListener("dragover", (e) => e.preventDefault());
document.addEventListener("drop", (e) => {
  e.preventDefault();
  if (e.dataTransfer.files[0]) openRecording(e.dataTransfer.files[0]);
});
