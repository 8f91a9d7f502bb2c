"""The verify page's speed in headless Chromium, next to fairdeal-verify on the same files.

Prints, each measured in this run (the machine is shared: compare ratios, not rates):
- one one-round bundle on /verify with the page loaded, from the verify click to the verdict
  shown, as the page times it (performance.now(), its result's data-ms): median and best of
  --repeats (target < 300 ms);
- events verified per second on an export of >= --events events (bench/verify.py's tables:
  one round each, version 2, every seat signing), in the page (read, verified and shown), and
  by ``fairdeal-verify --jobs 1`` on the same file (wall time, interpreter start included),
  and the ratio browser / command (target >= 1 x).
Run: python bench/browser.py [--events N] [--repeats N]
"""

import argparse
import os
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path[0] = str(Path(__file__).resolve().parent.parent)  # as bench/verify.py does

from bench.harness import bench_server, free_port  # noqa: E402
from bench.verify import NOTES, _pem, many_tables, timed_cli, write_export  # noqa: E402

VERDICT_JS = """const [text, key] = arguments;
document.getElementById('paste').value = text;
document.getElementById('paste').dispatchEvent(new Event('input'));
document.getElementById('key').value = key;
delete document.getElementById('result').dataset.ms;"""


def chromium() -> Any:
    """Headless Chromium as tests/browser/conftest.py starts it."""
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = shutil.which("chromium") or shutil.which("google-chrome") or ""
    for argument in ("--headless=new", "--window-size=1280,900", "--disable-dev-shm-usage",
                     "--disable-gpu", "--no-first-run", "--disable-extensions"):  # fmt: skip
        options.add_argument(argument)
    if hasattr(os, "geteuid") and os.geteuid() == 0:
        options.add_argument("--no-sandbox")
    driver = shutil.which("chromedriver") or "chromedriver"
    return webdriver.Chrome(options=options, service=Service(executable_path=driver))


def verify_in_page(browser: Any, text: str, key: str, timeout: float = 600) -> tuple[float, str]:
    """Pastes ``text``, clicks verify; the page's own time (ms) and its verdict."""
    browser.execute_script(VERDICT_JS, text, key)
    browser.find_element("id", "verify").click()
    deadline = time.monotonic() + timeout
    while (
        ms := browser.execute_script("return document.getElementById('result').dataset.ms")
    ) is None:
        if time.monotonic() > deadline:
            raise TimeoutError("the page gave no verdict")
        time.sleep(0.002)
    verdict = browser.execute_script("return document.getElementById('result').dataset.verdict")
    return float(ms), str(verdict)


def export_of(work: Path, events: int) -> tuple[Path, int, int]:
    """An export of at least ``events`` events: its path, its events and rounds."""
    rows: list[Any] = []
    count = 0
    for row in many_tables(10**9):
        rows.append(row)
        count += len(row[2])
        if count >= events:
            break
    written, note = write_export(work / "many.jsonl", rows)
    (work / "many.cp").write_text(note)
    return work / "many.jsonl", written, len(rows)


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--events", type=int, default=10_000)
    parser.add_argument("--repeats", type=int, default=9)
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="fairdeal-bench-browser-"))
    export, events, rounds = export_of(work, args.events)
    (work / "key.pem").write_text(_pem())
    key = NOTES.verifier_key()
    text = export.read_text()
    one = text.splitlines()[1]
    server = bench_server("fairdeal", free_port(), str(work / "instance")).start()
    browser = chromium()
    try:
        browser.get(server.url + "/verify")
        verify_in_page(browser, one, key)  # warm: modules compiled, WebCrypto ready
        runs = [verify_in_page(browser, one, key) for _ in range(args.repeats)]
        verdicts = {v for _, v in runs}
        times = sorted(ms for ms, _ in runs)
        best = f"{times[0]:.1f} ms best of {len(times)}"
        said = ",".join(verdicts)
        median = statistics.median(times)
        head = f"one-round bundle in the page:     {median:.1f} ms median"
        print(f"{head}, {best} (target < 300 ms; {said})")
        page_ms, verdict = verify_in_page(browser, text, key)
    finally:
        browser.quit()
        server.stop()
    wall, status, _ = timed_cli("--key", str(work / "key.pem"), str(export), "--jobs", "1")
    page_rate = events / (page_ms / 1000)
    cli_rate = events / wall
    print(f"export: {rounds:,} rounds, {events:,} events")
    page_s = page_ms / 1000
    print(f"browser, events verified per s:   {page_rate:>10,.0f} /s ({page_s:.2f} s, {verdict})")
    print(f"fairdeal-verify --jobs 1:         {cli_rate:>10,.0f} /s ({wall:.2f} s, exit {status})")
    print(f"browser / command:                {page_rate / cli_rate:.2f} x (target >= 1 x)")
    shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
