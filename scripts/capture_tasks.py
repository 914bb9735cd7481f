"""Ingest transcripts into a fresh palace and print every task memory capture creates,
for reading by hand (is each a real to-do? is any stored twice?).

    python scripts/capture_tasks.py scripts/data/sessions_holdout/projects
"""
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from palace import MemoryPalaceManager  # noqa: E402
from palace.capture.pipeline import Capturer  # noqa: E402
from palace.capture.transcripts import find_transcripts  # noqa: E402
from palace.settings import Settings  # noqa: E402
tmp = tempfile.mkdtemp()
pm = MemoryPalaceManager(tmp, settings=Settings.from_env({}, workspace_dir=tmp, vector_enabled=False))
cap = Capturer(pm)
files = find_transcripts(sys.argv[1:])
for f in files:
    cap.ingest_file(f)
tasks = [m for m in pm.list(limit=100000) if m.type == "task"]
print(f"{len(files)} files, {len(tasks)} task memories")
for m in sorted(tasks, key=lambda m: (m.extra.get("project", ""), m.created_at)):
    print(f"[{m.extra.get('taskState')}] {m.extra.get('project')} | {m.content!r}"[:300])
pm.close()
