"""Every limit lives in palace/limits.py, is documented there, and is enforced at the
boundary with an InvalidInputError (never an OSError from the file system)."""

from __future__ import annotations

import pytest

try:
    from palace import limits
except ImportError:  # before palace/limits.py existed (issue 12)
    limits = None
from palace.errors import InvalidInputError
from palace.validation import normalize_location


def test_limits_module_documents_every_limit():
    for name in ("MAX_QUERY_CHARS", "MAX_RESULTS", "MAX_TAGS", "MAX_TAG_CHARS", "MAX_ROOM_NAME_BYTES",
                 "MAX_LOCATION_DEPTH", "MAX_FRONTMATTER_BYTES", "MAX_FRONTMATTER_DEPTH",
                 "MAX_FRONTMATTER_NODES", "MAX_FILE_BYTES", "EARLIEST_TIME", "LATEST_TIME",
                 "DEFAULT_MAX_CONTENT_BYTES", "MAX_REQUEST_BYTES", "MAX_DAYS"):
        assert hasattr(limits, name), name
    assert limits.describe()  # a table of (name, value, meaning) for docs and `palace config`
    assert all(meaning for _name, _value, meaning in limits.describe())


@pytest.mark.parametrize("room", ["😀" * 70, "数" * 79, "𝕏" * 65])
def test_a_location_over_the_byte_limit_is_refused_before_any_file_is_made(room, pm, palace_root):
    assert len(room) <= limits.MAX_ROOM_NAME_CHARS < len(room.encode())  # short in characters only
    with pytest.raises(InvalidInputError, match="bytes"):
        normalize_location(room)
    with pytest.raises(InvalidInputError):
        pm.store("内容", location=room)
    assert not [p for p in palace_root.rglob("*.md")]


def test_the_longest_accepted_room_name_can_be_stored_and_read(pm):
    room = "😀" * (limits.MAX_ROOM_NAME_BYTES // 4)  # the largest emoji room
    memory = pm.store("emoji 房间", location=room)
    assert pm.get(memory.id).location == room


def test_bootstrap_refuses_a_query_that_search_refuses(pm):
    from palace.features.context import bootstrap, get_context

    query = "数据库 " * 2000  # 8000 characters
    with pytest.raises(InvalidInputError):
        pm.search(query)
    with pytest.raises(InvalidInputError, match="query"):
        bootstrap(pm, query)
    with pytest.raises(InvalidInputError, match="query"):
        get_context(pm, query, 1000)
    huge = "数据库" * 700_000  # 2 MB: refused before any work, whatever the budget
    pm.store("一条记忆", type="session", tags=["session"])
    for budget in (50, 4000):
        with pytest.raises(InvalidInputError, match="query"):
            bootstrap(pm, huge, budget)
