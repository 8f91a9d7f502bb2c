"""Browser tests: headless Chromium driven by Selenium, against a live service on loopback.

``browser`` is one headless Chromium (Debian's ``chromium`` and ``chromium-driver``); the
tests skip, saying why, when Chromium, its driver or Selenium is missing. ``browsers`` makes
more, each a session of its own (its own profile, so nothing like sessionStorage is shared).
``live_server`` is the service on loopback on the wall clock (pages count down to deadlines
in real time); ``serve_live`` is the same as a context manager, with an optional WSGI wrapper
around the app (a test's tampering middleware). ``console_errors`` reads the browser's
console: a SEVERE entry (a CSP violation, an uncaught error, a failed load) fails a test
through ``assert_clean_console``. ``screenshot`` saves a PNG under the test's tmp dir and
prints where.
"""

import os
import shutil
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from fairdeal.api.service.service import wall_clock
from tests.api.conftest import Server, start_server, stop_server

WINDOW = (1280, 900)
CHROMIUM_NAMES = ("chromium", "chromium-browser", "google-chrome")
WAIT_S = 15  # the longest a condition may take to come true in these tests


def _chromium() -> tuple[str, str] | str:
    """The Chromium binary and its driver, or why the browser tests cannot run."""
    try:
        import selenium  # noqa: F401
    except ImportError:
        return "selenium is not installed (pip install -e '.[dev]')"
    binary = next((found for name in CHROMIUM_NAMES if (found := shutil.which(name))), None)
    if binary is None:
        return "no Chromium on PATH (Debian: apt-get install chromium chromium-driver)"
    driver = shutil.which("chromedriver")
    if driver is None:
        return "no chromedriver on PATH (Debian: apt-get install chromium-driver)"
    return binary, driver


def _new_browser() -> Any:
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service as DriverService

    found = _chromium()
    if isinstance(found, str):
        pytest.skip(found)
    binary, driver = found
    options = webdriver.ChromeOptions()
    options.binary_location = binary
    for argument in (
        "--headless=new",
        f"--window-size={WINDOW[0]},{WINDOW[1]}",
        "--disable-dev-shm-usage",
        "--disable-gpu",
        "--no-first-run",
        "--disable-extensions",
        "--disable-background-networking",
        "--disable-component-update",
    ):
        options.add_argument(argument)
    if hasattr(os, "geteuid") and os.geteuid() == 0:
        options.add_argument("--no-sandbox")  # Chromium refuses to run as root with one
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    return webdriver.Chrome(options=options, service=DriverService(executable_path=driver))


@pytest.fixture
def browsers() -> Iterator[Callable[[], Any]]:
    """A maker of headless Chromium sessions, each isolated; all quit after the test."""
    made: list[Any] = []

    def make() -> Any:
        made.append(_new_browser())
        return made[-1]

    yield make
    for driver in made:
        driver.quit()


@pytest.fixture
def browser(browsers: Callable[[], Any]) -> Any:
    """One headless Chromium session (skips, saying why, when it cannot start)."""
    return browsers()


@contextmanager
def serve_live(
    tmp_path: Path, wrap: Callable[[Any], Any] | None = None, **settings: Any
) -> Iterator[Server]:
    """The service on loopback on the wall clock; ``wrap`` wraps its WSGI app if given."""
    running, http = start_server(tmp_path, clock=wall_clock, **settings)
    if wrap is not None:
        http.app = wrap(http.app)  # the request handler calls the server's app
    try:
        yield running
    finally:
        stop_server(running, http)


@pytest.fixture
def live_server(tmp_path: Path) -> Iterator[Server]:
    with serve_live(tmp_path) as running:
        yield running


def console_errors(driver: Any) -> list[str]:
    """The SEVERE console entries since the last read (reading empties the log)."""
    return [e["message"] for e in driver.get_log("browser") if e["level"] == "SEVERE"]


def assert_clean_console(driver: Any) -> None:
    errors = console_errors(driver)
    assert not errors, "the browser console has errors:\n" + "\n".join(errors)


def screenshot(driver: Any, tmp_path: Path, name: str) -> Path:
    """Save the window as ``tmp_path/screenshots/name.png`` and print the path."""
    folder = tmp_path / "screenshots"
    folder.mkdir(exist_ok=True)
    path = folder / f"{name}.png"
    driver.save_screenshot(str(path))
    print(f"screenshot: {path}")
    return path


def wait_for(driver: Any, condition: Callable[[Any], Any], timeout_s: float = WAIT_S) -> Any:
    """``condition(driver)`` once it is truthy (WebDriverWait: polls, never a fixed sleep)."""
    from selenium.common.exceptions import StaleElementReferenceException
    from selenium.webdriver.support.ui import WebDriverWait

    # The page draws its view again every second: an element read may be gone by the next read.
    ignored = (StaleElementReferenceException,)
    wait = WebDriverWait(driver, timeout_s, poll_frequency=0.05, ignored_exceptions=ignored)
    return wait.until(condition)
