"""axe-core, run inside the same headless Chromium, finds no serious or critical
problem (labels, contrast, names, landmarks, keyboard traps) on any page.

axe.min.js comes from the PyPI package axe-playwright-python (the viewer-test extra),
which ships axe-core inside it; the rules are axe's own (WCAG 2.x A and AA)."""

from __future__ import annotations

import json
from datetime import datetime, timedelta
from pathlib import Path

import pytest

from .conftest import SCREENSHOTS

pytestmark = pytest.mark.browser

BLOCKING = ("serious", "critical")


def axe_script() -> Path:
    import axe_playwright_python

    path = Path(axe_playwright_python.__file__).with_name("axe.min.js")
    assert path.exists(), f"axe.min.js not found in {path.parent}"
    return path


def run_axe(page) -> dict:
    # evaluated through the DevTools protocol, which the page's strict CSP does not block
    # (a <script> tag would be, and the CSP stays on: it is part of what is tested)
    page.evaluate(axe_script().read_text(encoding="utf-8") + "\n;undefined")
    return page.evaluate(
        "async () => await axe.run(document, {runOnly: {type: 'tag', values: "
        "['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'best-practice']}, resultTypes: ['violations']})")


def seed(pm):
    now = datetime.now(pm.tz).replace(microsecond=0)
    memory = pm.store("决定用 PostgreSQL 作为主数据库 | decision with a [link](https://example.org)",
                      tags=["数据库"], location="projects/palace", type="decision",
                      created_at=now - timedelta(days=8),
                      extra={"entities": ["PostgreSQL"],
                             "relations": [{"subject": "palace", "predicate": "uses", "object": "PostgreSQL"}]})
    pm.record_access([memory.id], at=now - timedelta(days=2))
    pm.experiences.record("deploy failed: port 5432 in use", "stop the old container first",
                          tags=["deploy"])
    gone = pm.store("an old note to delete", location="notes")
    pm.delete(gone.id)
    faded = pm.store("faded note", location="notes")
    pm.update(faded.id, status="archived")
    pm.store("I use black")
    pm.store("I use ruff")          # an uncertain pair: the review page has an item
    assert pm.graph.queue.items()
    return memory


def test_every_page_passes_axe_without_serious_or_critical_violations(live_viewer, page):
    memory = seed(live_viewer.pm)
    pages = ["/", "/?status=archived", f"/memories/{memory.id}", "/search?q=上周 数据库",
             "/search?q=nothing-matches-this", "/trash", "/experiences", "/review", "/feed", "/login",
             "/memories/0123456789abcdef"]
    report = {}
    blocking = []
    for path in pages:
        page.goto(live_viewer.at(path))
        page.locator("details").evaluate_all("els => els.forEach(e => e.open = true)")
        result = run_axe(page)
        found = [{"id": v["id"], "impact": v["impact"], "help": v["help"],
                  "nodes": [n["target"] for n in v["nodes"]][:5]} for v in result["violations"]]
        report[path] = found
        blocking += [(path, v) for v in found if v["impact"] in BLOCKING]
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    (SCREENSHOTS.parent / "axe-report.json").write_text(json.dumps(report, ensure_ascii=False, indent=2))
    assert not blocking, json.dumps(blocking, ensure_ascii=False, indent=2)


def test_axe_does_catch_a_broken_page(live_viewer, page):
    """The check itself works: an unlabelled input with grey-on-grey text is reported."""
    page.goto(live_viewer.at("/"))
    page.evaluate("""() => {
        const main = document.querySelector('main');
        main.appendChild(document.createElement('input'));
        const faint = document.createElement('p');
        faint.textContent = 'faint';
        faint.style.color = '#bbb';          // CSSOM: allowed by the CSP, unlike style=""
        faint.style.background = '#ccc';
        main.appendChild(faint);
    }""")
    ids = {v["id"] for v in run_axe(page)["violations"] if v["impact"] in BLOCKING}
    assert {"label", "color-contrast"} <= ids
