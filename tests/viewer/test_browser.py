"""The viewer in headless Chromium on a real workspace: what a person does with it,
on a local palace and on a real embedded PostgreSQL (every flow runs on both)."""

from __future__ import annotations

import re
from datetime import datetime, timedelta

import pytest
from backend_helpers import stored_markdown

from palace.manager import MemoryPalaceManager
from palace.settings import Settings

from .conftest import SCREENSHOTS, screenshot

pytestmark = pytest.mark.browser
pytest_plugins = ["conftest_postgres"]


def until_true(page, expression: str, timeout_s: float = 30.0) -> None:
    """Poll ``expression`` with page.evaluate (the viewer's CSP, no eval, blocks the
    in-page polling of wait_for_function)."""
    import time

    deadline = time.monotonic() + timeout_s
    while not page.evaluate(expression):
        assert time.monotonic() < deadline, f"never true: {expression}"
        page.wait_for_timeout(100)


@pytest.fixture(params=["local", "postgres"])
def viewer_backend(request, monkeypatch) -> str:
    if request.param == "postgres":
        monkeypatch.setenv("MEMORY_BACKEND", "postgres")
        monkeypatch.setenv("MEMORY_DATABASE_URL", request.getfixturevalue("postgres_url"))
    return request.param


@pytest.fixture
def viewer_pm(viewer_backend, workspace):
    """The viewer's manager (conftest's ``live_viewer`` serves it) on either backend."""
    pm = MemoryPalaceManager(workspace, settings=Settings.from_env())
    assert pm.backend == viewer_backend
    yield pm
    pm.close()


def seed(pm):
    now = datetime.now(pm.tz).replace(microsecond=0)
    # the week before last, whatever today is: the timeline test counts last week's hits
    monday = now.replace(hour=12, minute=0, second=0) - timedelta(days=now.weekday())
    db = pm.store("决定用 PostgreSQL 作为主数据库，放弃 MongoDB。\n\n- 事务\n- **JSONB** 足够",
                  tags=["数据库", "decision"], importance=0.8, location="projects/palace",
                  type="decision", created_at=monday - timedelta(days=10))
    pm.store("Deploy to staging failed: port 5432 already in use", tags=["deploy"],
             location="projects/palace/ops", type="event", created_at=now - timedelta(days=3))
    pm.store("用户喜欢简洁的回答，中文为主", tags=["preference"], location="people",
             type="preference", created_at=now - timedelta(days=40))
    pm.record_access([db.id], at=now - timedelta(days=4))
    pm.record_access([db.id], at=now - timedelta(days=1))
    return db


def test_search_open_memory_and_see_its_decay_curve(live_viewer, page):
    db = seed(live_viewer.pm)
    page.goto(live_viewer.at("/"))
    assert page.locator(".rooms").get_by_role("link", name="projects").is_visible()
    page.get_by_role("searchbox", name="Search memories").fill("数据库")
    page.keyboard.press("Enter")
    page.wait_for_url(re.compile(r"/search\?q="))
    result = page.locator("ol.results li.result").first
    assert "PostgreSQL" in result.inner_text()
    result.locator("summary").click()  # "why?": the explanation in words
    why = result.locator("details.why").inner_text()
    assert "keyword search" in why and "Matched words" in why
    screenshot(page, "search")
    result.locator("a.memory-link").click()
    page.wait_for_url(f"**/memories/{db.id}")
    curve = page.locator("svg.decay-curve")
    assert curve.is_visible()
    assert curve.locator("line.threshold").count() == 1
    assert curve.locator("circle.access").count() == 2      # the two recorded uses
    assert curve.locator("polyline.projection").count() == 1
    assert re.search(r"falls under the archive threshold \(0\.10\) on \d{4}-\d\d-\d\d",
                     page.locator("section.decay figcaption").inner_text())
    assert page.locator("strong", has_text="JSONB").is_visible()  # Markdown rendered
    screenshot(page, "memory")
    # viewing is not using: no access was added by the page or the search
    assert live_viewer.pm.get(db.id, record_access=False).access_count == 2


def test_delete_and_restore_from_the_page(live_viewer, page):
    db = seed(live_viewer.pm)
    page.goto(live_viewer.at(f"/memories/{db.id}"))
    page.get_by_role("button", name="Move to trash").click()
    page.wait_for_url(re.compile(r"/trash"))
    assert "Moved to the trash" in page.locator(".flash").inner_text()
    assert live_viewer.pm.get(db.id, record_access=False) is None
    assert [m.id for m in live_viewer.pm.list_trash()] == [db.id]
    row = page.locator(f"#t-{db.id}")
    assert "PostgreSQL" in row.inner_text()
    screenshot(page, "trash")
    row.get_by_role("button", name=re.compile("^Restore")).click()
    page.wait_for_selector(".flash")
    assert "Restored" in page.locator(".flash").inner_text()
    restored = live_viewer.pm.get(db.id, record_access=False)
    assert restored is not None and restored.status == "active"
    assert restored.location == "projects/palace" and "PostgreSQL" in stored_markdown(live_viewer.pm, db.id)
    if live_viewer.pm.backend == "local":
        assert restored.path.exists() and "projects/palace" in str(restored.path)
    assert live_viewer.pm.list_trash() == []


def test_empty_trash_needs_confirmation(live_viewer, page):
    db = seed(live_viewer.pm)
    live_viewer.pm.delete(db.id)
    page.goto(live_viewer.at("/trash"))
    page.get_by_role("button", name="Empty trash").click()  # unticked: the browser refuses
    assert page.url.endswith("/trash") and live_viewer.pm.list_trash() != []
    page.get_by_label(re.compile("Delete these 1 files for good")).check()
    page.get_by_role("button", name="Empty trash").click()
    page.wait_for_selector(".flash")
    assert live_viewer.pm.list_trash() == []
    assert "The trash is empty" in page.locator("main").inner_text()


def test_edit_tags_importance_pin_and_room(live_viewer, page):
    db = seed(live_viewer.pm)
    page.goto(live_viewer.at(f"/memories/{db.id}"))
    page.get_by_label("Tags").fill("数据库, postgres，选型")
    page.get_by_label("Importance").fill("0.9")
    page.get_by_label("Room").fill("archive/decisions")
    page.get_by_label("Pinned (never fades)").check()
    page.get_by_role("button", name="Save").click()
    page.wait_for_selector(".flash")
    assert "Saved" in page.locator(".flash").inner_text()
    memory = live_viewer.pm.get(db.id, record_access=False)
    assert memory.tags == ("数据库", "postgres", "选型")
    assert memory.importance == 0.9 and memory.pinned and memory.location == "archive/decisions"
    text = stored_markdown(live_viewer.pm, db.id)  # the file (or the database's Markdown) is the truth
    assert "postgres" in text and "importance: 0.9" in text and "archive/decisions" in str(memory.path)
    assert "#postgres" in page.locator("dd.tags").inner_text()
    assert "Pinned" in page.locator("section.decay figcaption").inner_text()


@pytest.mark.parametrize("viewer_backend", ["local"], indirect=True)  # files: the local backend's
def test_a_file_edited_on_disk_shows_on_reload(live_viewer, page):
    db = seed(live_viewer.pm)
    page.goto(live_viewer.at(f"/memories/{db.id}"))
    assert "MongoDB" in page.locator(".content").inner_text()
    path = live_viewer.pm.get(db.id, record_access=False).path
    path.write_text(path.read_text(encoding="utf-8").replace("MongoDB", "CockroachDB"), encoding="utf-8")
    page.reload()
    assert "CockroachDB" in page.locator(".content").inner_text()


def test_a_change_by_another_client_shows_on_reload(live_viewer, page, workspace, tmp_path):
    """Another client of the same palace (another process; on Postgres another machine)
    fixes a memory: the page shows it on reload."""
    db = seed(live_viewer.pm)
    page.goto(live_viewer.at(f"/memories/{db.id}"))
    assert "MongoDB" in page.locator(".content").inner_text()
    other_ws = workspace if live_viewer.pm.backend == "local" else tmp_path / "other-machine"
    other = MemoryPalaceManager(other_ws, settings=Settings.from_env())
    try:
        other.update(db.id, content=db.content.replace("MongoDB", "CockroachDB"))
    finally:
        other.close()
    page.reload()
    assert "CockroachDB" in page.locator(".content").inner_text()
    assert "MongoDB" not in page.locator(".content").inner_text()


def test_new_memories_arrive_in_the_live_feed_and_can_be_deleted(live_viewer, page):
    seed(live_viewer.pm)
    page.goto(live_viewer.at("/feed"))
    # a locator waits from Playwright's own script: the viewer's CSP (no eval) blocks the
    # in-page polling wait_for_function falls back to when the feed is not live at once
    page.locator("#feed-state").filter(has_text=re.compile(r"^Live")).wait_for()
    observed = live_viewer.pm.store("Observed: the agent ran `pytest -q` and 3 tests failed",
                                    type="observation", location="sessions", source="capture")
    item = page.locator(f"#f-{observed.id}")
    item.wait_for(timeout=10_000)
    assert "pytest -q" in item.inner_text() and "observation" in item.inner_text()
    screenshot(page, "feed")
    item.get_by_role("button", name=re.compile("^Delete")).click()
    page.wait_for_selector(".flash")
    assert live_viewer.pm.get(observed.id, record_access=False) is None
    assert observed.id in [m.id for m in live_viewer.pm.list_trash()]


def test_bootstrap_preview_does_not_count_as_use(live_viewer, page):
    pm = live_viewer.pm
    seed(pm)
    task = pm.store("Finish the viewer docs", type="task", location="tasks")
    page.goto(live_viewer.at("/feed"))
    preview = page.locator("pre.bootstrap-text").inner_text()
    assert "Open tasks" in preview and "Finish the viewer docs" in preview
    assert pm.get(task.id, record_access=False).access_count == 0


def test_a_query_with_time_words_shows_its_range_on_a_timeline(live_viewer, page):
    pm = live_viewer.pm
    seed(pm)
    today = datetime.now(pm.tz).replace(hour=12, minute=0, second=0, microsecond=0)
    last_week_wednesday = today - timedelta(days=today.weekday() + 5)
    inside = pm.store("数据库索引调优：给 memories(created_ts) 加索引", tags=["数据库"],
                      location="projects/palace", created_at=last_week_wednesday)
    page.goto(live_viewer.at("/search?q=" + "上周 数据库"))
    section = page.locator("section.time-range")
    assert "上周" in section.inner_text()
    timeline = section.locator("svg.query-timeline")
    assert timeline.locator("rect.range").count() == 1
    assert timeline.locator("circle.hit").count() >= 2
    assert timeline.locator("circle.hit.inside").count() == 1
    assert page.locator(f"ol.results a[href$='/memories/{inside.id}']").count() == 1
    page.locator("details.why").first.evaluate("el => el.open = true")
    screenshot(page, "search-time")


def test_home_lists_rooms_pages_and_pictures(live_viewer, page):
    pm = live_viewer.pm
    for i in range(55):
        pm.store(f"note number {i}", location="notes/daily")
    seed(pm)
    page.goto(live_viewer.at("/"))
    rooms = page.locator(".rooms")
    assert re.search(r"notes\s*55", rooms.inner_text())
    assert page.locator("ol.memories > li").count() == 50
    page.get_by_role("link", name="Older →").click()
    assert page.locator("ol.memories > li").count() == 8
    page.wait_for_load_state("load")  # the pictures are fetched after the page: wait for them (loaded or failed)
    for chart in ("decay.svg", "rooms.svg"):
        loaded = page.evaluate(
            "src => { const img = [...document.images].find(i => i.src.endsWith(src));"
            " return img && img.complete && img.naturalWidth > 0; }", chart)
        assert loaded, f"{chart} did not render"
    page.goto(live_viewer.at("/"))
    until_true(page, "[...document.images].every(i => i.complete && i.naturalWidth > 0)")
    screenshot(page, "home")
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    page.locator("section.pictures").screenshot(path=str(SCREENSHOTS / "home-pictures.png"))


def test_keyboard_alone_reaches_search_and_a_memory(live_viewer, page):
    db = seed(live_viewer.pm)
    page.goto(live_viewer.at("/"))
    page.keyboard.press("Tab")
    assert page.evaluate("document.activeElement.textContent") == "Skip to content"
    page.keyboard.press("Enter")
    assert page.evaluate("document.activeElement.id") == "main"
    page.goto(live_viewer.at("/search?q=PostgreSQL"))
    link = page.locator("ol.results a.memory-link").first
    for _ in range(40):  # tab until the first result link has focus
        page.keyboard.press("Tab")
        if page.evaluate("document.activeElement.classList.contains('memory-link')"):
            break
    else:
        pytest.fail("the first result was not reachable with Tab")
    page.keyboard.press("Enter")
    page.wait_for_url(f"**/memories/{db.id}")
    assert link is not None


def test_archived_memories_are_listed_and_restored(live_viewer, page):
    pm = live_viewer.pm
    now = datetime.now(pm.tz)
    faded = pm.store("an unused note from long ago", location="notes", importance=0.0,
                     created_at=now - timedelta(days=400))
    report = pm.run_decay()
    assert faded.id in report.archived
    page.goto(live_viewer.at("/"))
    page.get_by_role("link", name=re.compile(r"^Archived \(1\)")).click()
    row = page.locator(f"#m-{faded.id}")
    assert "archived" in row.inner_text()
    row.get_by_role("button", name=re.compile("^Restore to active")).click()
    page.wait_for_selector(".flash")
    assert pm.get(faded.id, record_access=False).status == "active"
    assert page.locator(f"#m-{faded.id}").count() == 0  # no longer in the archived list


def test_review_the_graphs_uncertain_pairs_from_the_page(live_viewer, page):
    """The review queue: accept one pair (the old fact closes, its memory is marked),
    keep both of another; decided pairs leave the page and are not asked about again."""
    pm = live_viewer.pm
    black = pm.store("I use black")
    ruff = pm.store("I use ruff")
    pm.store("I use isort")
    items = pm.graph.queue.items()
    assert len(items) >= 2
    first, second = items[0], items[1]
    page.goto(live_viewer.at("/"))
    page.get_by_role("link", name=re.compile(rf"^Review \({len(items)}\)")).click()
    page.wait_for_url("**/review")
    row = page.locator(f"#r-{first.id}")
    assert "black" in row.inner_text() and "ruff" in row.inner_text()
    assert (first.old_memory, first.new_memory) == (black.id, ruff.id)
    screenshot(page, "review")
    row.get_by_role("button", name=re.compile("^Accept")).click()
    page.wait_for_selector(".flash")
    assert "Accepted" in page.locator(".flash").inner_text()
    assert pm.get(black.id, record_access=False).extra["supersededBy"] == ruff.id
    assert page.locator(f"#r-{first.id}").count() == 0
    page.locator(f"#r-{second.id}").get_by_role("button", name=re.compile("^Keep both")).click()
    page.wait_for_selector(".flash")
    assert "Kept both" in page.locator(".flash").inner_text()
    assert [i.id for i in pm.graph.queue.items()] == [i.id for i in items[2:]]
    decided = {(d.old_memory, d.new_memory): d.decision for d in pm.graph.decisions.entries()}
    assert decided[(first.old_memory, first.new_memory)] == "accepted"
    assert decided[(second.old_memory, second.new_memory)] == "rejected"


def test_an_empty_search_says_why_and_weak_matches_can_be_hidden(live_viewer, page):
    pm = live_viewer.pm
    pm.store("妈妈的生日是三月五日，每年给她订蛋糕", location="people")
    pm.store("周五下午组里聚餐，定在公司楼下的面馆", location="people")
    page.goto(live_viewer.at("/search?q=" + "nothing-matches-this"))
    assert page.locator("h2", has_text="0 results").is_visible()
    assert "no memory matches these words" in page.locator("p.note").inner_text()

    # a question the palace holds almost nothing of: its one match is listed, marked weak
    question = "面馆的对账脚本部署到哪个仓库，密钥多久轮换一次"
    page.goto(live_viewer.at("/search"))
    page.get_by_label("Query").fill(question)
    page.locator("form.search-form").get_by_role("button", name="Search").click()
    page.wait_for_url(re.compile(r"/search\?q="))
    results = page.locator("ol.results li.result")
    assert results.count() == 1
    assert "no strong match" in page.locator("p.note").inner_text()
    first = results.first
    assert "(weak)" in first.locator("summary").inner_text()
    first.locator("summary").click()
    assert re.search(r"Weak: holds little of the question \(keyword coverage 0\.\d+\)",
                     first.locator("details.why").inner_text())
    screenshot(page, "search-weak")

    page.get_by_label("Strong matches only").check()
    page.locator("form.search-form").get_by_role("button", name="Search").click()
    page.wait_for_url(re.compile(r"strong=1"))
    assert page.locator("ol.results li.result").count() == 0
    assert "1 weak match hidden" in page.locator("p.note").inner_text()
    assert page.get_by_label("Strong matches only").is_checked()  # the choice survives the reload
    # looking at weak matches is not using them
    assert all(m.access_count == 0 for m in pm.list())
