"""``palace mcp``: palace as an MCP server over stdio, on the official ``mcp`` SDK.

One ``MemoryPalaceManager`` per server process (settings from ``MEMORY_*``
variables, workspace from ``--workspace``). Tool calls are serialised through one
lock: the manager's SQLite connection is shared, and the SDK runs synchronous
tools on worker threads.

A workspace without a palace (a new one, or a mistyped ``--workspace``) still gets a
running server: its instructions and every tool but ``save_memory`` say where it
looked and how to create one, and ``save_memory`` creates it, as ``palace add`` does
(``opening.Palace``). ``palace mcp`` (palace/cli/servers.py) is the one entry point; it
calls ``server.serve``.

Nothing an agent sends can crash the server: palace errors, arguments that do
not match a tool's schema and unknown arguments all come back as tool results
with ``is_error`` set and a message that says what to do instead (``checks``). Results
carry both a text block (JSON, or the rendered context for ``get_context``,
``bootstrap`` and ``get_summary``) and the same data as structured content (``results``).

The modules:

- ``server``: builds the SDK's server from the table in ``tools`` and serves it on stdio;
- ``tools``: the 23 tools, in the order clients list them, each with its annotations
  and description;
- ``memories``, ``search``, ``context``, ``experiences``, ``graph``, ``tasks``: the tools
  themselves, plain functions whose first argument is the open manager;
- ``params``: the argument types several tools share; ``results``: the result shapes;
- ``checks``: argument checks and error messages; ``opening``: the server's palace,
  opened at start or by the first ``save_memory``.

Nothing ``server`` imports at start needs the ``mcp`` SDK (or pydantic, which comes with
it): ``serve`` says how to install it before the tools are imported.
See docs/mcp.md for client configuration and a scripted session.
"""
