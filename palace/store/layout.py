"""Where a palace lives inside its workspace: the two names every layer agrees on
(``palace.index.INDEX_DIR`` repeats the second; tests/integrations/test_hook_service.py holds them equal).

Plain strings, no imports: the Claude Code hooks' client (palace.integrations.hook_client)
finds its service's socket from them without loading palace's storage or index.
"""

PALACE_SUBDIR = "memory/palace"  # <workspace>/memory/palace/<room>/<id>.md
INDEX_DIR = ".palace"            # <palace>/.palace/: the derived index and caches


def has_palace(settings) -> bool:
    """Whether the palace ``settings`` name exists, without creating it: on Postgres the
    database is the palace (nothing is written into the workspace), locally the folder must be
    there. The MCP server and the sidecar open a palace only when this holds."""
    return settings.backend != "local" or (settings.workspace / PALACE_SUBDIR).is_dir()
