"""Hostile arguments are bad input, refused by palace's one validator with exit code 2 on the
command line and a tool error over MCP: far dates (9999-12-31, whose period would overflow
the calendar), counts SQLite cannot hold, and path-like or empty ids."""

from __future__ import annotations

import pytest

from palace import InvalidInputError
from palace.features.summary import get_summary

EXIT_BAD_INPUT = 2
FAR_DAYS = ["9999-12-31", "0001-01-01", "9000-01-01"]
BAD_IDS = ["../../etc/passwd", "", "a/b", ".hidden"]


@pytest.mark.parametrize("period", ["day", "week", "month"])
@pytest.mark.parametrize("day", FAR_DAYS)
def test_summary_of_a_far_date_is_bad_input(period, day, pm, cli):
    with pytest.raises(InvalidInputError, match="outside the range"):
        get_summary(pm, period, day)
    result = cli("summary", "--period", period, "--date", day)
    assert result.rc == EXIT_BAD_INPUT, result
    assert "Traceback" not in result.stderr and "outside the range" in result.stderr


def test_summary_at_the_last_accepted_day_still_works(pm):
    assert get_summary(pm, "week", "8999-12-31").label


@pytest.mark.parametrize("limit", [10**20, 2**63, -1, True])
def test_a_count_sqlite_cannot_hold_is_bad_input(limit, pm):
    pm.store("一条记忆")
    with pytest.raises(InvalidInputError, match="limit"):
        pm.list(limit=limit)
    with pytest.raises(InvalidInputError, match="limit"):
        pm.list_page(limit=limit)
    assert len(pm.list(limit=2**63 - 1)) == 1


def test_cli_list_with_a_huge_count_is_bad_input(cli):
    cli("init")
    result = cli("list", "-n", "99999999999999999999")
    assert result.rc == EXIT_BAD_INPUT, result
    assert "Traceback" not in result.stderr and "limit" in result.stderr


@pytest.mark.parametrize("bad", BAD_IDS)
def test_path_like_ids_are_refused_by_the_library(bad, pm):
    with pytest.raises(InvalidInputError, match="invalid review item id"):
        pm.graph.resolve(bad, accept=True, now=pm.now())
    with pytest.raises(InvalidInputError, match="invalid memory id"):
        pm.record_access([bad])
    assert not pm.journal_path.exists() or bad not in pm.journal_path.read_text()


@pytest.mark.parametrize("command", ["accept", "reject"])
def test_cli_review_refuses_a_path_like_id(command, cli):
    cli("init")
    result = cli("review", command, "../../etc/passwd")
    assert result.rc == EXIT_BAD_INPUT, result
    assert "invalid review item id" in result.stderr and "Traceback" not in result.stderr


def test_mcp_refuses_far_dates_and_path_like_ids(workspace):
    pytest.importorskip("mcp")
    from mcp_helpers import Client, run_session

    async def scenario(client: Client):
        errors = {}
        for day in FAR_DAYS:
            for period in ("day", "week", "month"):
                errors[f"summary {period} {day}"] = await client.error("get_summary", period=period, date=day)
        for bad in BAD_IDS:
            for action in ("list", "accept", "reject"):
                errors[f"review {action} {bad!r}"] = await client.error("review_facts", action=action, id=bad)
        listed = await client.ok("review_facts")
        return errors, listed

    errors, listed = run_session(workspace, scenario)
    for case, message in errors.items():
        expected = "outside the range" if case.startswith("summary") else "invalid review item id"
        assert expected in message and "internal error" not in message, (case, message)
    assert listed["count"] == 0
