"""The page in a real browser: headless Chromium, driven by selenium, opens committed recordings
through the file inputs as a person would, and each view shows what perfdata computes for them.

Run by test.sh after web/build.sh (web/pkg must exist); needs chromium and chromium-driver.
`SCREENSHOTS=DIR` saves what each view looks like.
"""

import functools
import http.server
import json
import os
import pathlib
import shutil
import threading

import re
import subprocess

import pytest
from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

WEB = pathlib.Path(__file__).resolve().parent
TESTDATA = WEB.parent / "testdata"
KALLSYMS = TESTDATA / "folded/kallsyms-4a5a9b0affb66c437abcd455d2738af879985fa9"
PERFDATA = WEB.parent / os.environ.get("CARGO_TARGET_DIR", "target") / "release/perfdata"


def cli(*args, ok=(0,)):
    """What the perfdata command prints (built by test.sh's cargo test --release)."""
    r = subprocess.run([str(PERFDATA), *map(str, args)], capture_output=True, text=True)
    assert r.returncode in ok, r.stderr
    return r


@pytest.fixture(scope="module")
def page():
    assert (WEB / "pkg/perfdata_wasm_bg.wasm").is_file(), "run web/build.sh first"
    handler = functools.partial(QuietHandler, directory=str(WEB))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    opts = webdriver.ChromeOptions()
    for a in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--window-size=1400,1000"):
        opts.add_argument(a)
    # The system's chromedriver (Debian's chromium-driver), not one selenium would download.
    driver = webdriver.Chrome(options=opts, service=Service(shutil.which("chromedriver")))
    driver.get(f"http://127.0.0.1:{server.server_address[1]}/index.html")
    yield driver
    logs = [e for e in driver.get_log("browser") if e["level"] == "SEVERE"]
    driver.quit()
    server.shutdown()
    assert not logs, logs


class QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


def wait(driver, cond, timeout=60):
    return WebDriverWait(driver, timeout).until(lambda d: cond(d))


def shot(driver, name):
    out = os.environ.get("SCREENSHOTS")
    if out:
        driver.save_screenshot(os.path.join(out, f"{name}.png"))


def open_recording(driver, name, directory=TESTDATA):
    driver.find_element(By.ID, "file").send_keys(str(directory / name))
    wait(driver, lambda d: d.find_element(By.ID, "status").text.startswith(f"{name}: "))
    status = driver.find_element(By.ID, "status")
    assert "read in" in status.text and status.get_attribute("class") != "bad", status.text


def view(driver, name):
    driver.find_element(By.CSS_SELECTOR, f'nav button[data-view="{name}"]').click()
    section = driver.find_element(By.ID, name)
    wait(driver, lambda d: "computing" not in section.text)
    return section


def test_overview_counts_the_samples(page):
    open_recording(page, "fp.data")
    overview = view(page, "overview")  # the counts come after the first flame graph
    rows = [r.text for r in overview.find_elements(By.CSS_SELECTOR, "table tr")]
    # perf report --stats: 152 samples of cpu-clock, 173 records (testdata/README.md).
    assert "cpu-clock 152" in rows
    assert "SAMPLE 152" in rows
    assert "# event : name = cpu-clock" in overview.find_element(By.TAG_NAME, "pre").text
    shot(page, "overview")


def test_flame_graph_names_frames_from_the_files_given(page):
    open_recording(page, "fp.data")
    section = view(page, "flamegraph")
    assert section.find_elements(By.TAG_NAME, "iframe"), section.text + repr(page.get_log("browser"))
    frame = section.find_element(By.TAG_NAME, "iframe")
    page.switch_to.frame(frame)
    unnamed = page.find_element(By.TAG_NAME, "svg").get_attribute("textContent")
    page.switch_to.default_content()
    assert "__libc_start_call_main" not in unnamed
    files = [p for p in (TESTDATA / "folded/root").rglob("*") if p.is_file() and p.suffix != ".map"]
    page.find_element(By.ID, "symbols").send_keys("\n".join(str(p) for p in files + [KALLSYMS]))
    log = page.find_element(By.ID, "symbols-log")
    wait(page, lambda d: "kernel symbols" in log.text)
    assert "libc.so.6: ELF, placed at /perfdata/buildid/.build-id/" in log.text
    wait(page, lambda d: section.find_elements(By.TAG_NAME, "iframe") and section.find_element(By.TAG_NAME, "iframe") != frame)
    page.switch_to.frame(section.find_element(By.TAG_NAME, "iframe"))
    titles = [t.get_attribute("textContent") for t in page.find_elements(By.TAG_NAME, "title")]
    # The flame graph's own script runs (its search box and zoom): the SVG is interactive.
    assert page.execute_script("return typeof search === 'function' && typeof zoom === 'function'")
    page.switch_to.default_content()
    assert any(t.startswith("__libc_start_call_main (") for t in titles), titles[:5]
    assert any(t.startswith("entry_SYSCALL_64_after_hwframe (") for t in titles), "kernel frames from kallsyms"
    # The frame names are perfdata folded's for the same files on disk.
    folded = cli("folded", TESTDATA / "fp.data", "--symfs", TESTDATA / "folded/root", "--buildid-dir",
                 TESTDATA / "folded/no-buildid-cache", "--kallsyms", KALLSYMS).stdout
    names = {f for line in folded.splitlines() for f in line.rsplit(" ", 1)[0].split(";")}
    drawn = {re.sub(r" \([\d,]+ samples?, [\d.]+%\)$", "", t) for t in titles} - {"all", "Flame Graph"}
    assert drawn == names, (sorted(drawn - names)[:5], sorted(names - drawn)[:5])
    shot(page, "flamegraph")


def test_a_recording_read_in_many_slices_folds_as_the_cli_folds_it(page, tmp_path):
    # 4,093-byte slices (?chunk=): 118 of them for this 480 KB recording, none on a record's
    # boundary, several asked for at once and copied in order.
    base = page.current_url.split("?")[0]
    page.get(base + "?chunk=4093")
    try:
        open_recording(page, "cxx-dwarf.data")
        section = view(page, "flamegraph")
        page.switch_to.frame(section.find_element(By.TAG_NAME, "iframe"))
        titles = [t.get_attribute("textContent") for t in page.find_elements(By.TAG_NAME, "title")]
        page.switch_to.default_content()
    finally:
        page.get(base)
    # No symbol files on either side.
    folded = cli("folded", TESTDATA / "cxx-dwarf.data", "--symfs", tmp_path, "--buildid-dir", tmp_path,
                 "--kallsyms", os.devnull).stdout
    names = {f for line in folded.splitlines() for f in line.rsplit(" ", 1)[0].split(";")}
    drawn = {re.sub(r" \([\d,]+ samples?, [\d.]+%\)$", "", t) for t in titles} - {"all", "Flame Graph"}
    assert drawn == names, (sorted(drawn - names)[:5], sorted(names - drawn)[:5])
    total = sum(int(line.rsplit(" ", 1)[1]) for line in folded.splitlines())
    assert total > 100 and f"all ({total:,} samples, 100%)" in titles, (total, titles[:3])


def test_scheduler_view_prints_perfs_latency_table(page):
    open_recording(page, "sched.data")
    page.find_element(By.CSS_SELECTOR, '#sched-compat option[value="perf-6.1"]').click()
    section = view(page, "sched")
    wait(page, lambda d: "TOTAL:" in section.text)
    table = section.find_element(By.TAG_NAME, "pre").get_attribute("textContent")
    assert table == (TESTDATA / "sched.data.sched-latency").read_text()
    shot(page, "sched")
    # The timeline, in its frame (its script runs): a lane per CPU, the axis from 0 in round steps
    # with a unit, redrawn finer when the wheel zooms in.
    page.switch_to.frame(section.find_element(By.TAG_NAME, "iframe"))
    wait(page, lambda d: d.find_elements(By.CSS_SELECTOR, "text.lane"))
    lanes = "return [...document.querySelectorAll('text.lane')].map(t => t.firstChild.nodeValue)"
    assert page.execute_script(lanes) == ["CPU 0", "CPU 1"]
    ticks = [t.text for t in page.find_elements(By.CSS_SELECTOR, "#axis text")]
    assert ticks[0] == "0" and all(t.endswith(" ms") for t in ticks[1:]), ticks
    step = float(ticks[2].split()[0]) - float(ticks[1].split()[0])
    page.execute_script("""
        var f = document.getElementById('frame'), r = f.getBoundingClientRect();
        for (var i = 0; i < 12; i++)
          f.dispatchEvent(new WheelEvent('wheel', {deltaY: -100, clientX: r.left + r.width / 2,
                                                   clientY: r.top + 20, bubbles: true, cancelable: true}));""")
    zoomed = [t.text for t in page.find_elements(By.CSS_SELECTOR, "#axis text")]
    assert "zoom" in page.find_element(By.ID, "zoomnote").text
    unit = zoomed[1].split()[1]
    zstep = (float(zoomed[2].split()[0]) - float(zoomed[1].split()[0])) * (1000 if unit == "µs" else 1)
    assert 0 < zstep < step and zoomed[0] != "0", (ticks, zoomed)
    page.switch_to.default_content()
    # A lane per task: the CLI's lanes.
    page.find_element(By.CSS_SELECTOR, '#sched-rows option[value="task"]').click()
    wait(page, lambda d: "TOTAL:" in section.text and "computing" not in section.text)
    page.switch_to.frame(section.find_element(By.TAG_NAME, "iframe"))
    wait(page, lambda d: d.find_elements(By.CSS_SELECTOR, "text.lane"))
    lanes = page.execute_script(lanes)
    page.switch_to.default_content()
    svg = cli("sched", "timeline", "--rows", "task", TESTDATA / "sched.data").stdout
    want = re.findall(r'<text class="lane"[^>]*>([^<]*)<', svg)
    assert lanes == want and len(want) > 2, (lanes, want)
    page.find_element(By.CSS_SELECTOR, '#sched-rows option[value="cpu"]').click()
    # The modern rules by default: perfdata sched latency's table.
    page.find_element(By.CSS_SELECTOR, '#sched-compat option[value=""]').click()
    wait(page, lambda d: "TOTAL:" in section.text and "computing" not in section.text)
    table = section.find_element(By.TAG_NAME, "pre").get_attribute("textContent")
    assert table == cli("sched", "latency", TESTDATA / "sched.data").stdout
    wakeups = view(page, "wakeup")
    assert wakeups.find_elements(By.CSS_SELECTOR, "svg rect") and "Wakeup latency" in wakeups.text
    shot(page, "wakeup")


def test_block_view_draws_the_heat_map(page):
    open_recording(page, "block.data")
    section = view(page, "block")
    assert section.find_elements(By.CSS_SELECTOR, "svg rect")
    cells = section.find_elements(By.CSS_SELECTOR, "table td")
    assert cells[0].text == "I/Os" and int(cells[1].text.replace(",", "")) > 0
    shot(page, "block")


def test_a_file_that_is_not_perf_data_says_what_the_cli_says(page, tmp_path):
    bad = tmp_path / "notes.txt"
    bad.write_text("not a recording\n")
    page.find_element(By.ID, "file").send_keys(str(bad))
    status = page.find_element(By.ID, "status")
    wait(page, lambda d: status.text.startswith("notes.txt: "))
    assert status.get_attribute("class") == "bad"
    said = cli("stats", bad, ok=(1,)).stderr.strip()
    assert said.startswith("perfdata: ")
    assert status.text == "notes.txt: " + said.removeprefix("perfdata: ")


def test_a_truncated_recording_shows_what_it_could_read_and_the_clis_diagnostics(page, tmp_path):
    cut = tmp_path / "cut.data"
    cut.write_bytes((TESTDATA / "fp.data").read_bytes()[:12000])
    open_recording(page, "cut.data", directory=tmp_path)
    overview = view(page, "overview")
    problems = overview.find_element(By.CSS_SELECTOR, "pre.bad").text.splitlines()
    stats = json.loads(cli("stats", "--json", cut, ok=(3,)).stdout)
    assert problems == stats["diagnostics"] and problems
    rows = [r.text for r in overview.find_elements(By.CSS_SELECTOR, "table tr")]
    assert f"cpu-clock {stats['samples_by_event']['cpu-clock']}" in rows
