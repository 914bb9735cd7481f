"""Fixtures for the viewer: a real server on a free loopback port over a real tmp
workspace, and headless Chromium (Debian's package) driven by Playwright's client.

Screenshots go to ``test-artifacts/screenshots/`` (override with
PALACE_SCREENSHOT_DIR); CI keeps that folder as an artefact.
"""

from __future__ import annotations

import os
import shutil
import socket
import tempfile
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterator

import pytest

from palace.manager import MemoryPalaceManager
from palace.settings import Settings

ROOT = Path(__file__).resolve().parents[2]
SCREENSHOTS = Path(os.environ.get("PALACE_SCREENSHOT_DIR", ROOT / "test-artifacts" / "screenshots"))
CHROMIUM = os.environ.get("PALACE_CHROMIUM", "/usr/bin/chromium")
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync"]


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@dataclass
class LiveViewer:
    url: str
    pm: MemoryPalaceManager
    server: Any

    def at(self, path: str) -> str:
        return self.url + path


def start_server(app, port: int):
    import uvicorn

    config = uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning",
                            timeout_graceful_shutdown=1, lifespan="on")
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 20
    while not server.started:
        if time.monotonic() > deadline or not thread.is_alive():
            raise RuntimeError("the viewer did not start")
        time.sleep(0.02)
    return server, thread


def stop_server(server, thread) -> None:
    server.should_exit = True
    thread.join(timeout=10)


@pytest.fixture
def viewer_pm(workspace) -> Iterator[MemoryPalaceManager]:
    pm = MemoryPalaceManager(workspace, settings=Settings.from_env())
    yield pm
    pm.close()


@pytest.fixture
def live_viewer(viewer_pm) -> Iterator[LiveViewer]:
    """The viewer over ``viewer_pm`` on a free loopback port (the feed polls fast)."""
    from palace.viewer import create_viewer_app

    port = free_port()
    server, thread = start_server(create_viewer_app(viewer_pm, feed_poll_s=0.2), port)
    yield LiveViewer(url=f"http://127.0.0.1:{port}", pm=viewer_pm, server=server)
    stop_server(server, thread)


@pytest.fixture(scope="module")
def browser_context():
    if not Path(CHROMIUM).exists():
        pytest.fail(f"{CHROMIUM} is missing: run scripts/install-browser.sh (apt-get install chromium)")
    from playwright.sync_api import sync_playwright

    profile = tempfile.mkdtemp(prefix="palace-chromium-")
    with sync_playwright() as playwright:
        context = playwright.chromium.launch_persistent_context(
            profile, executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS,
            viewport={"width": 1280, "height": 900}, locale="en-US")
        context.set_default_timeout(15_000)
        try:
            yield context
        finally:
            context.close()
            shutil.rmtree(profile, ignore_errors=True)


@pytest.fixture
def page(browser_context):
    browser_context.clear_cookies()
    tab = browser_context.new_page()
    errors: list[str] = []
    tab.on("pageerror", lambda exc: errors.append(str(exc)))
    # the pages run under a strict CSP: anything it blocks is a bug in the viewer
    tab.on("console", lambda msg: errors.append(msg.text) if "Content Security Policy" in msg.text else None)
    yield tab
    tab.close()
    assert not errors, f"JavaScript or CSP errors on the page: {errors}"


def screenshot(page, name: str) -> Path:
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    path = SCREENSHOTS / f"{name}.png"
    page.screenshot(path=str(path), full_page=True)
    return path
