"""The viewer under /viewer on the embedding sidecar, behind the sidecar's token (the
sidecar app in process; `palace sidecar --viewer` is the same wiring, see palace/cli/servers.py)."""

from __future__ import annotations

import re

import pytest
from starlette.testclient import TestClient

from palace.embedders import InProcessEmbedder
from palace.manager import MemoryPalaceManager
from palace.settings import Settings
from vector_service.app import create_app, mount_viewer


@pytest.fixture
def sidecar_with_viewer(workspace):
    pm = MemoryPalaceManager(workspace)
    memory = pm.store("seen through the sidecar", location="projects")
    pm.close()
    # no model (an empty name fails at once, without importing torch): the viewer's
    # search is keyword only, which is what this test is about
    settings = Settings.from_env(vector_service_token="side-token", vector_model="")
    app = create_app(settings, workspace, embedder=InProcessEmbedder(settings))
    mount_viewer(app, settings, workspace)
    yield app, memory


def test_viewer_under_the_sidecar_uses_its_token(sidecar_with_viewer):
    app, memory = sidecar_with_viewer
    url = "http://127.0.0.1:8765"
    with TestClient(app, base_url=url, follow_redirects=False) as client:
        answer = client.get("/viewer/")
        assert answer.status_code == 303 and answer.headers["location"].startswith("/viewer/login")
        assert client.get("/viewer").status_code == 307
        # the API keeps its own Bearer rule
        assert client.post("/search", json={"query": "x"}).status_code == 401
    with TestClient(app, base_url=url) as browser:
        page = browser.get("/viewer/?token=side-token")
        assert page.status_code == 200 and "seen through the sidecar" in page.text
        # every link and form points under /viewer
        links = re.findall(r'(?:href|action|src)="(/[^"]*)"', page.text)
        assert links and all(link.startswith("/viewer/") for link in links), links
        assert browser.get("/viewer/static/viewer.css").status_code == 200
        one = browser.get(f"/viewer/memories/{memory.id}")
        assert one.status_code == 200 and "decay-curve" in one.text
        csrf = re.search(r'name="csrf" content="([0-9a-f]+)"', one.text).group(1)
        done = browser.post(f"/viewer/memories/{memory.id}/delete", data={"csrf": csrf, "next": "/trash"})
        assert done.status_code == 200 and str(done.url).startswith(url + "/viewer/trash")
