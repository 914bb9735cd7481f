"""The token, Host and CSRF rules: over HTTP against the app in process (Starlette's
TestClient), and the login form in a real browser against a real server."""

from __future__ import annotations

import re

import pytest
from starlette.testclient import TestClient

from palace.errors import ConfigError
from palace.viewer import create_viewer_app
from palace.network import check_bind_address

from .conftest import free_port, start_server, stop_server


URL = "http://127.0.0.1:8770"  # what the in-process clients send as their Host


@pytest.fixture
def token_viewer(viewer_pm):
    """A real server, for the browser."""
    port = free_port()
    server, thread = start_server(create_viewer_app(viewer_pm, token="s3cret-token"), port)
    yield f"http://127.0.0.1:{port}", viewer_pm
    stop_server(server, thread)


@pytest.fixture
def viewer_app(viewer_pm):
    return create_viewer_app(viewer_pm)


def in_process(app, *, follow_redirects: bool = True) -> TestClient:
    return TestClient(app, base_url=URL, follow_redirects=follow_redirects)


def csrf_of(html: str) -> str:
    return re.search(r'name="csrf" content="([0-9a-f]+)"', html).group(1)


def test_a_non_loopback_address_needs_a_token():
    rule = {"serving": "serve the viewer", "how_to_set_token": "--token"}
    with pytest.raises(ConfigError, match=r"refusing to serve the viewer on 0\.0\.0\.0.*--token.*127\.0\.0\.1"):
        check_bind_address("0.0.0.0", None, **rule)
    check_bind_address("0.0.0.0", "a-token", **rule)
    for host in ("127.0.0.1", "localhost", "::1"):
        check_bind_address(host, None, **rule)


def test_edits_need_the_form_token_and_the_same_origin(viewer_app, viewer_pm):
    memory = viewer_pm.store("keep me")
    with in_process(viewer_app, follow_redirects=False) as client:
        csrf = csrf_of(client.get("/").text)
        # no form token: refused, nothing deleted
        answer = client.post(f"/memories/{memory.id}/delete", data={})
        assert answer.status_code == 403
        # a page on another site posting the right-looking form: refused by Origin
        answer = client.post(f"/memories/{memory.id}/delete", data={"csrf": csrf},
                             headers={"Origin": "http://evil.example"})
        assert answer.status_code == 403
        assert viewer_pm.get(memory.id, record_access=False) is not None
        # our own form: done, and answered with a redirect (post/redirect/get)
        answer = client.post(f"/memories/{memory.id}/delete", data={"csrf": csrf},
                             headers={"Origin": URL})
        assert answer.status_code == 303
    assert viewer_pm.get(memory.id, record_access=False) is None


def test_without_a_token_only_loopback_host_names_are_served(viewer_app, viewer_pm):
    """DNS rebinding: a site whose name now points at 127.0.0.1 must not read memories."""
    viewer_pm.store("secret plans")
    with in_process(viewer_app) as client:
        assert client.get("/", headers={"Host": "attacker.example"}).status_code == 403
        assert client.get("/", headers={"Host": "localhost:1234"}).status_code == 200


def test_with_a_token_every_page_needs_it(viewer_pm):
    app, pm = create_viewer_app(viewer_pm, token="s3cret-token"), viewer_pm
    memory = pm.store("private memory")
    with in_process(app, follow_redirects=False) as client:
        answer = client.get(f"/memories/{memory.id}")
        assert answer.status_code == 303 and "/login" in answer.headers["location"]
        assert client.get("/charts/decay.svg").status_code == 401
        assert client.get("/feed/events").status_code == 401
        login = client.get("/login")
        assert login.status_code == 200 and "private memory" not in login.text
        assert "Trash" not in login.text  # nothing of the palace before logging in
        # wrong token: back to the form
        answer = client.post("/login", data={"token": "wrong", "next": "/"})
        assert "failed=1" in answer.headers["location"]
        # a Bearer header works for scripts
        answer = client.get(f"/memories/{memory.id}", headers={"Authorization": "Bearer s3cret-token"})
        assert answer.status_code == 200 and "private memory" in answer.text
    with in_process(app) as browser:
        # ?token= sets the cookie and drops the token from the address
        answer = browser.get(f"/memories/{memory.id}?token=s3cret-token")
        assert answer.status_code == 200 and "private memory" in answer.text
        assert "token" not in str(answer.url)
        assert browser.get("/").status_code == 200  # the cookie carries on


@pytest.mark.browser
def test_login_form_in_the_browser(token_viewer, page):
    url, pm = token_viewer
    pm.store("behind the login")
    page.goto(url + "/")
    page.get_by_label("Token").fill("s3cret-token")
    page.get_by_role("button", name="Log in").click()
    page.wait_for_selector("ol.memories")
    assert "behind the login" in page.locator("main").inner_text()
    page.get_by_role("button", name="Log out").click()
    page.wait_for_url("**/login")
    page.goto(url + "/")
    assert page.url.startswith(url + "/login")


def test_redirects_stay_on_this_server_and_bad_input_is_explained(viewer_app, viewer_pm):
    memory = viewer_pm.store("a memory")
    with in_process(viewer_app, follow_redirects=False) as client:
        csrf = csrf_of(client.get("/").text)
        for target in ("//evil.example/", "/\\evil.example/", "https://evil.example/"):
            answer = client.post("/login", data={"token": "", "next": target})
            assert answer.headers["location"].startswith("/"), target
            assert not answer.headers["location"].startswith(("//", "/\\")), target
        answer = client.post(f"/memories/{memory.id}/edit", data={"csrf": csrf, "importance": "2"})
        assert answer.status_code == 400 and "importance" in answer.text
        assert client.get("/memories/0123456789abcdef").status_code == 404
        assert client.get("/memories/not-an-id!").status_code == 400
        assert client.get("/?page=0").status_code == 400
    assert viewer_pm.get(memory.id, record_access=False).importance == 0.5
