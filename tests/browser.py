"""A real headless Chromium for page tests, driven by Selenium.

Debian's ``chromium`` and ``chromium-driver`` are used as installed: the
driver path is given explicitly so Selenium Manager never downloads anything,
and every host name resolves to nothing so a stray network load fails.
"""

from __future__ import annotations

import shutil
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

CHROMIUM = "/usr/bin/chromium"
CHROMEDRIVER = "/usr/bin/chromedriver"
FLAGS = (
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
    "--no-first-run", "--no-default-browser-check", "--disable-extensions",
    "--host-resolver-rules=MAP * ~NOTFOUND", "--window-size=1400,900",
)
ARTIFACTS = Path(__file__).resolve().parent.parent / "test-artifacts"


def missing() -> str | None:
    """Why no browser can be started here, or ``None``."""
    try:
        import selenium  # noqa: F401
    except ImportError:
        return "selenium is not installed (pip install '.[test]')"
    for exe in (CHROMIUM, CHROMEDRIVER):
        if not Path(exe).exists():
            return f"{exe} not found (apt-get install chromium chromium-driver)"
    return None


class Browser:
    """One Chromium process (with its own profile folder) for a test session."""

    def __init__(self) -> None:
        from selenium import webdriver
        from selenium.webdriver.chrome.service import Service

        self.profile = Path(tempfile.mkdtemp(prefix="kg-chromium-"))
        opts = webdriver.ChromeOptions()
        opts.binary_location = CHROMIUM
        for flag in FLAGS:
            opts.add_argument(flag)
        opts.add_argument(f"--user-data-dir={self.profile}")
        opts.set_capability("goog:loggingPrefs", {"browser": "ALL"})
        service = Service(CHROMEDRIVER)
        try:
            self.driver = webdriver.Chrome(service=service, options=opts)
        except BaseException:
            shutil.rmtree(self.profile, ignore_errors=True)
            raise
        self.driver.set_page_load_timeout(120)
        self.driver.set_script_timeout(120)

    def open(self, page: Path, *, timeout: float = 120) -> None:
        """Load ``page`` and wait until the network says it is drawn (``window.kgReady``)."""
        self.console()  # drop messages from earlier pages
        self.driver.get(page.resolve().as_uri())
        self.wait(lambda: self.js("return window.kgReady === true"), timeout,
                  f"{page} never became ready")

    def js(self, script: str, *args: object) -> object:
        return self.driver.execute_script(script, *args)

    def wait(self, condition: Callable[[], object], timeout: float, message: str) -> object:
        """Poll ``condition`` until it is truthy; fail with ``message`` after ``timeout`` s."""
        end = time.monotonic() + timeout
        while True:
            value = condition()
            if value:
                return value
            if time.monotonic() > end:
                raise AssertionError(message)
            time.sleep(0.1)

    def console(self) -> list[dict]:
        """Console messages since the last call."""
        return self.driver.get_log("browser")

    def errors(self) -> list[str]:
        """Console errors (level SEVERE) since the last call."""
        return [m["message"] for m in self.console() if m["level"] == "SEVERE"]

    def screenshot(self, name: str) -> Path:
        """Save a PNG of the window into ``test-artifacts/``."""
        ARTIFACTS.mkdir(exist_ok=True)
        path = ARTIFACTS / f"{name}.png"
        self.driver.save_screenshot(str(path))
        return path

    def close(self) -> None:
        try:
            self.driver.quit()
        finally:
            shutil.rmtree(self.profile, ignore_errors=True)
