"""Where a palace lives inside its workspace: the two names every layer agrees on
(``palace.index.INDEX_DIR`` repeats the second; tests/test_hook_service.py holds them equal).

Plain strings, no imports: the Claude Code hooks' client (palace.integrations.hook_client)
finds its service's socket from them without loading palace's storage or index.
"""

PALACE_SUBDIR = "memory/palace"  # <workspace>/memory/palace/<room>/<id>.md
INDEX_DIR = ".palace"            # <palace>/.palace/: the derived index and caches
