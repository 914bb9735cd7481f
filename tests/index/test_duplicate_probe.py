"""A store finds an earlier copy of its text by the rarest of its words' lists, whether
those lists are packed (after a reindex or a fold) or still changes, and a deleted or
edited original is no longer a copy."""

from __future__ import annotations

from palace import MemoryPalaceManager, Settings


def test_a_copy_is_found_through_packed_lists_and_changes(tmp_path):
    with MemoryPalaceManager(tmp_path, settings=Settings.from_env(workspace_dir=str(tmp_path))) as pm:
        for n in range(40):
            pm.store(f"the deploy of service {n} went fine on friday", id=f"d{n}")
        first = pm.store("the deploy of the billing service moved to monday", id="billing")
        pm.reindex()  # every list packed, no changes left
        again = pm.store("The deploy of the billing service  moved to Monday", tags=["ops"])
        assert again.duplicate and again.id == "billing" and again.tags == ("ops",)

        pm.delete(first.id)  # the original's words are now removals among the changes
        fresh = pm.store("the deploy of the billing service moved to monday")
        assert not fresh.duplicate and fresh.id != "billing"
        pm.update(fresh.id, content="the deploy of the billing service moved to tuesday")
        assert not pm.store("the deploy of the billing service moved to monday").duplicate
        assert pm.store("the deploy of service 7 went fine on friday").id == "d7"
