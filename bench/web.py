#!/usr/bin/env python3
"""Time to the first flame graph in the browser page against the native command, side by side.

    bench/web.py FILE...      (after web/build.sh and cargo build --release -p perfdata-cli)

For each recording: the native `perfdata flamegraph FILE -o /dev/null` (median of 3 runs), and in
headless Chromium the page from choosing the file to the flame graph drawn in its frame (the page's
own read and compute times beside it). Neither side is given symbol files (the native run looks in
an empty --symfs and build-id cache, with an empty kallsyms), so both fold the same unnamed frames.
Needs the Python venv's selenium (test.sh installs it) and Debian's chromium-driver.
"""

import functools
import http.server
import os
import pathlib
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time

from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By

ROOT = pathlib.Path(__file__).resolve().parent.parent
WEB = ROOT / "web"
PERFDATA = ROOT / os.environ.get("CARGO_TARGET_DIR", "target") / "release/perfdata"


class Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


def native(path, empty):
    runs = []
    for _ in range(3):
        start = time.perf_counter()
        subprocess.run([PERFDATA, "flamegraph", path, "-o", os.devnull, "--symfs", empty, "--buildid-dir", empty,
                        "--kallsyms", os.devnull], check=True, capture_output=True)
        runs.append(time.perf_counter() - start)
    return statistics.median(runs)


def in_page(driver, path):
    start = time.perf_counter()
    driver.find_element(By.ID, "file").send_keys(str(path))
    status = driver.find_element(By.ID, "status")
    while not status.text.startswith(f"{path.name}: "):
        time.sleep(0.02)
    read_ms = int(re.search(r"read in (\d+) ms", status.text).group(1))
    driver.find_element(By.CSS_SELECTOR, 'nav button[data-view="flamegraph"]').click()
    section = driver.find_element(By.ID, "flamegraph")
    while not section.find_elements(By.TAG_NAME, "iframe"):
        time.sleep(0.02)
    total = time.perf_counter() - start
    fold_ms = int(re.search(r"computed in (\d+) ms", section.text).group(1))
    return total, read_ms, fold_ms


# The floor of reading: the chosen file read by FileReaderSync in the page's 8 MB slices in a
# worker of its own, the bytes touched and dropped (no WebAssembly).
FLOOR = """
const done = arguments[arguments.length - 1];
const code = `onmessage = (e) => {
  const f = e.data, r = new FileReaderSync(), t = performance.now();
  let sum = 0;
  for (let at = 0; at < f.size; at += 8 << 20) sum += new Uint8Array(r.readAsArrayBuffer(f.slice(at, at + (8 << 20))))[0];
  postMessage(performance.now() - t);
};`;
const w = new Worker(URL.createObjectURL(new Blob([code], { type: "text/javascript" })));
w.onmessage = (e) => { w.terminate(); done(e.data); };
w.postMessage(document.getElementById("file").files[0]);
"""


def main(files):
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(Quiet, directory=str(WEB)))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    opts = webdriver.ChromeOptions()
    for a in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage"):
        opts.add_argument(a)
    driver = webdriver.Chrome(options=opts, service=Service(shutil.which("chromedriver")))
    driver.get(f"http://127.0.0.1:{server.server_address[1]}/index.html")
    driver.set_script_timeout(120)
    print("| Recording | native `perfdata flamegraph` | page: file chosen → flame graph (read + fold) | ratio "
          "| the browser's read alone |")
    print("|---|---|---|---|---|")
    with tempfile.TemporaryDirectory() as empty:
        for f in (pathlib.Path(f).resolve() for f in files):
            n = native(f, empty)
            total, read_ms, fold_ms = in_page(driver, f)
            floor_ms = driver.execute_async_script(FLOOR)
            size = f.stat().st_size / 1e6
            print(f"| {f.name} ({size:.0f} MB) | {n:.2f} s | {total:.2f} s ({read_ms / 1000:.2f} + {fold_ms / 1000:.2f}) "
                  f"| {total / n:.1f}× | {floor_ms / 1000:.2f} s |", flush=True)
    driver.quit()
    server.shutdown()


if __name__ == "__main__":
    main(sys.argv[1:])
