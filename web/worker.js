// The reader, off the page's thread: a module worker that holds one Recording (perfdata-wasm)
// and answers the page's requests. A recording is read slice by slice (Blob.slice, read
// asynchronously with the next slices already asked for, so the browser reads them while this
// thread copies one) into one buffer in the WebAssembly memory: a large recording is never held
// twice in full.
import init, { Loader, last_panic } from "./pkg/perfdata_wasm.js";

const ready = init();
let wasm = null;
/// The size of a slice: 8 MB, or the page's `?chunk=N`, a whole number of bytes (the tests read in
/// many small slices); anything else is ignored.
const chunkParam = Number(new URL(self.location.href).searchParams.get("chunk"));
const CHUNK = Number.isSafeInteger(chunkParam) && chunkParam > 0 ? chunkParam : 8 << 20;
/// Slices asked for ahead of the one being copied.
const AHEAD = 2;
let recording = null;

/// The bytes of `file`, in slices handed to `push` in order, reporting progress as `what`.
async function readAll(file, what, push) {
  const pending = [];
  let asked = 0;
  const ask = () => {
    if (asked < file.size) {
      pending.push(file.slice(asked, asked + CHUNK).arrayBuffer());
      asked += CHUNK;
    }
  };
  for (let i = 0; i <= AHEAD; i++) ask();
  for (let done = 0; pending.length > 0; ) {
    const piece = new Uint8Array(await pending.shift());
    ask();
    push(piece);
    done += piece.length;
    self.postMessage({ kind: "progress", what, done, total: file.size });
  }
}

async function open(file) {
  // The module's sizes are 32-bit: a larger file would be announced wrapped.
  if (file.size >= 2 ** 32) throw new Error(`${file.size} bytes: more than this page's 4 GB memory can hold`);
  const loader = new Loader(file.size); // throws when the file cannot fit in the module's memory
  // Each piece straight into the loader's buffer in the module's memory (one copy).
  try {
    await readAll(file, file.name, (piece) => {
      new Uint8Array(wasm.memory.buffer, loader.next_at(), piece.length).set(piece);
      loader.advance(piece.length);
    });
  } catch (e) {
    loader.free();
    throw e;
  }
  if (recording) recording.free();
  recording = null;
  recording = loader.finish();
  // The counts are a pass over every record: asked for apart ("stats"), after the first view.
  return { header: recording.header() };
}

/// A file handed over to name frames: ELF (by its magic), a symbol archive (zstd's magic),
/// else kallsyms text.
function addSymbolFile(file) {
  const bytes = new Uint8Array(new FileReaderSync().readAsArrayBuffer(file));
  const magic = Array.from(bytes.subarray(0, 4));
  if (magic.join() === [0x7f, 0x45, 0x4c, 0x46].join()) {
    return `${file.name}: ELF, placed at ${recording.add_binary(file.name, bytes).trim().split("\n").join(", ")}`;
  }
  if (magic.join() === [0x28, 0xb5, 0x2f, 0xfd].join()) {
    return `${file.name}: symbol archive, ${recording.add_archive(bytes)} files`;
  }
  recording.add_kallsyms(bytes);
  return `${file.name}: kernel symbols (kallsyms)`;
}

const views = {
  stats: () => JSON.parse(recording.stats()),
  flamegraph: (a) => recording.flamegraph(a.title || "", a.compat || ""),
  sched_latency: (a) => recording.sched_latency(a.compat || ""),
  sched_timeline: (a) => recording.sched_timeline(a.width || 1200, a.rows || "cpu", a.tasks ?? 40),
  block_latency: () => JSON.parse(recording.block_latency()),
  block_heatmap: () => recording.block_heatmap(),
  wakeup_heatmap: () => recording.wakeup_heatmap(),
};

// One request at a time, in the order they came (a request that arrives while a file is being
// read waits for it, as it would if the reading did not wait for slices).
let queue = Promise.resolve();
self.onmessage = (event) => {
  queue = queue.then(() => handle(event));
};

async function handle(event) {
  const { id, op, file, files, args } = event.data;
  try {
    wasm = await ready;
    let result;
    if (op === "open") {
      result = await open(file);
    } else if (!recording) {
      throw new Error("no recording is open");
    } else if (op === "symbols") {
      // One line a file; a file that cannot be used says why and the others still count.
      result = files.map((f) => {
        try {
          return addSymbolFile(f);
        } catch (e) {
          return `${f.name}: ${e && e.message ? e.message : e}`;
        }
      });
    } else if (views[op]) {
      const start = performance.now();
      result = { value: views[op](args || {}), ms: Math.round(performance.now() - start) };
    } else {
      throw new Error(`unknown request ${op}`);
    }
    self.postMessage({ kind: "done", id, result });
  } catch (e) {
    // A RuntimeError is the module aborting on a panic (a bug of ours): say its message; the
    // module is unusable after it, so the page starts a new worker.
    if (e instanceof WebAssembly.RuntimeError) {
      const why = last_panic() || e.message;
      self.postMessage({ kind: "done", id, fatal: true, error: `internal error: ${why} (please report it)` });
    } else {
      self.postMessage({ kind: "done", id, error: String(e && e.message ? e.message : e) });
    }
  }
}
