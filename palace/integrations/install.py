"""``palace install claude-code`` and ``palace install openclaw``: wire palace into a
host's configuration in one step, say what changed, keep a backup, and undo it
with ``--uninstall``.

* **Claude Code**: hook commands in ``~/.claude/settings.json`` (SessionStart,
  UserPromptSubmit, PostToolUse, PostToolUseFailure, PreCompact, Stop, SessionEnd,
  each running ``python -m palace.integrations.claude_code EVENT --workspace WS``) and
  the palace MCP server in ``~/.claude.json`` (``mcpServers.palace``, user scope, as
  ``claude mcp add --scope user`` writes it), running ``palace mcp --workspace WS``.
* **OpenClaw**: in ``~/.openclaw/openclaw.json`` (or ``OPENCLAW_CONFIG_PATH``),
  the plugin folder under ``plugins.load.paths``, the memory slot
  (``plugins.slots.memory = "palace"``) and ``plugins.entries.palace`` with the
  sidecar's URL (and token).

Our entries are recognised by what they run or name, so installing twice
changes nothing and uninstalling removes only them. Before a file is changed it
is copied to ``<file>.palace-backup-<time>`` (the newest three kept per file); a file
that uninstalling leaves empty is removed. ``--config-dir`` points at another
home folder (tests, or a machine image being prepared).
"""

from __future__ import annotations

import json
import os
import shutil
import sys
from dataclasses import asdict, dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Callable

import click

from palace.store.atomic import atomic_write
from palace.store.layout import PALACE_SUBDIR
from palace.settings import Settings

HOOK_MODULE = "palace.integrations.claude_code"
# Claude Code event -> (our command's event argument, matcher, Claude Code's timeout in s).
CLAUDE_HOOKS: dict[str, tuple[str, str | None, int]] = {
    "SessionStart": ("session-start", None, 15),
    "UserPromptSubmit": ("user-prompt-submit", None, 10),
    "PostToolUse": ("post-tool-use", "*", 10),
    "PostToolUseFailure": ("post-tool-use-failure", "*", 10),
    "PreCompact": ("pre-compact", None, 10),
    "Stop": ("stop", None, 10),
    "SessionEnd": ("session-end", None, 10),
}
CLAUDE_SETTINGS = Path(".claude") / "settings.json"  # under the home folder: where the hooks go
MCP_NAME = "palace"
PLUGIN_ID = "palace"
DEFAULT_SIDECAR_URL = "http://127.0.0.1:8765"
STATE_FILE = "palace-install.json"  # beside openclaw.json: what to restore on --uninstall
BACKUP_MARK = ".palace-backup-"     # <file>.palace-backup-<UTC time>
BACKUPS_KEPT = 3                     # per file, the newest


class InstallError(Exception):
    """A configuration palace cannot change safely; the message says what to do."""


@dataclass
class Change:
    file: str
    action: str          # "add", "update", "remove", "unchanged"
    what: str
    backup: str | None = None


@dataclass
class Report:
    host: str
    uninstall: bool
    changes: list[Change] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return {"host": self.host, "uninstall": self.uninstall,
                "changes": [asdict(c) for c in self.changes], "notes": list(self.notes)}


# --------------------------------------------------------------------------- files

def _now_stamp() -> str:
    # to the microsecond: two installs in one second must not overwrite each other's backup
    return datetime.now(timezone.utc).strftime("%Y%m%dT%H%M%S.%fZ")


def read_json(path: Path, *, what: str) -> dict[str, Any]:
    if not path.exists():
        return {}
    text = path.read_text(encoding="utf-8")
    if not text.strip():
        return {}
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise InstallError(
            f"{path} is not plain JSON ({exc.msg} at line {exc.lineno}); palace will not rewrite "
            f"{what} it cannot read exactly. Make the change by hand (see docs/integrations.md) "
            "or remove the comments and trailing commas first") from None
    if not isinstance(data, dict):
        raise InstallError(f"{path} does not hold a JSON object; fix it by hand first")
    return data


def write_json(path: Path, data: dict[str, Any], original: dict[str, Any]) -> str | None:
    """Write ``data`` if it differs from what was read; returns the backup's path. The
    newest BACKUPS_KEPT backups of a file are kept, older ones removed."""
    if data == original and path.exists():
        return None
    backup = None
    if path.exists():
        backup_path = path.with_name(f"{path.name}{BACKUP_MARK}{_now_stamp()}")
        shutil.copy2(path, backup_path)
        backup = str(backup_path)
        _prune_backups(path)
    path.parent.mkdir(parents=True, exist_ok=True)  # a host's folder: the umask's mode, as the host makes it
    # atomic: the host never reads half a file; a rewrite keeps the file's mode
    atomic_write(path, json.dumps(data, indent=2, ensure_ascii=False) + "\n")
    return backup


def _prune_backups(path: Path) -> None:
    # the stamp sorts as the time does; a reinstall a day must not fill the folder
    for old in sorted(path.parent.glob(f"{path.name}{BACKUP_MARK}*"))[:-BACKUPS_KEPT]:
        old.unlink(missing_ok=True)


def _edit(path: Path, what: str, change: Callable[[dict[str, Any]], list[tuple[str, str]]],
          report: Report) -> None:
    original = read_json(path, what=what)
    data = json.loads(json.dumps(original))  # deep copy
    changes = change(data)
    if changes and report.uninstall and not data and path.exists():
        # nothing is left but what install added: the file goes, as it came (a host
        # reads a missing file as an empty one); its content was palace's own entries
        path.unlink()
        changes.append(("remove", f"{path.name}: empty without palace's entries"))
        backup = None
    else:
        backup = write_json(path, data, original) if changes else None
    for action, description in changes or [("unchanged", f"{what}: nothing to change")]:
        report.changes.append(Change(str(path), action, description, backup))


# --------------------------------------------------------------------------- Claude Code

def _is_ours(hook: Any) -> bool:
    return isinstance(hook, dict) and HOOK_MODULE in str(hook.get("command", ""))


def hook_command(python: str, event_arg: str, workspace: str, bootstrap_tokens: int,
                 prompt_tokens: int) -> str:
    parts = [python, "-m", HOOK_MODULE, event_arg, "--workspace", workspace]
    if event_arg == "session-start":
        parts += ["--bootstrap-tokens", str(bootstrap_tokens)]
    if event_arg == "user-prompt-submit":
        parts += ["--prompt-tokens", str(prompt_tokens)]
    return " ".join(_quote(p) for p in parts)


def _quote(part: str) -> str:
    import shlex

    return shlex.quote(part)


def mcp_command(python: str, workspace: str) -> dict[str, Any]:
    """``palace mcp --workspace WS``, run by ``python`` (``python -m palace`` is the
    ``palace`` command): the same entry point a user types, whatever PATH the host has."""
    return {"command": python, "args": ["-m", "palace", "mcp", "--workspace", workspace]}


def has_palace(workspace: str) -> bool:
    return (Path(workspace) / PALACE_SUBDIR).is_dir()


def _remove_our_hooks(settings: dict[str, Any]) -> list[str]:
    removed: list[str] = []
    hooks = settings.get("hooks")
    if not isinstance(hooks, dict):
        return removed
    for event in list(hooks):
        groups = hooks[event]
        if not isinstance(groups, list):
            continue
        kept_groups = []
        for group in groups:
            if isinstance(group, dict) and isinstance(group.get("hooks"), list):
                kept = [h for h in group["hooks"] if not _is_ours(h)]
                if len(kept) != len(group["hooks"]):
                    removed.append(event)
                if kept:
                    kept_groups.append({**group, "hooks": kept})
            else:
                kept_groups.append(group)
        if kept_groups:
            hooks[event] = kept_groups
        else:
            del hooks[event]
    if not hooks:
        settings.pop("hooks", None)
    return removed


def claude_code_hooks_installed(home: Path, workspace: str) -> bool:
    """Whether ``home``'s Claude Code settings run palace's hooks on ``workspace``, as
    `palace install claude-code` writes them (a file palace cannot read counts as no)."""
    try:
        settings = read_json(home / CLAUDE_SETTINGS, what="Claude Code settings")
    except (InstallError, OSError, UnicodeDecodeError):
        return False
    hooks = settings.get("hooks")
    groups = [g for gs in hooks.values() if isinstance(gs, list) for g in gs] if isinstance(hooks, dict) else []
    commands = [h["command"] for g in groups if isinstance(g, dict) and isinstance(g.get("hooks"), list)
                for h in g["hooks"] if _is_ours(h)]
    return any(_hook_workspace(command) == Path(workspace).resolve() for command in commands)


def _hook_workspace(command: str) -> Path | None:
    import shlex

    try:
        parts = shlex.split(command)
    except ValueError:
        return None
    if "--workspace" not in parts[:-1]:
        return None
    return Path(parts[parts.index("--workspace") + 1]).expanduser().resolve()


def install_claude_code(home: Path, *, workspace: str | None, python: str, uninstall: bool,
                        bootstrap_tokens: int = 1500, prompt_tokens: int = 800) -> Report:
    report = Report("claude-code", uninstall)
    settings_path = home / CLAUDE_SETTINGS
    state_path = home / ".claude.json"

    def hooks(settings: dict[str, Any]) -> list[tuple[str, str]]:
        before = json.dumps(settings.get("hooks"), sort_keys=True)
        removed = _remove_our_hooks(settings)
        if uninstall:
            return [("remove", f"hook {event}: palace") for event in removed]
        table = settings.setdefault("hooks", {})
        if not isinstance(table, dict):
            raise InstallError(f"{settings_path}: 'hooks' is not an object; fix it by hand first")
        for event, (argument, matcher, timeout) in CLAUDE_HOOKS.items():
            group: dict[str, Any] = {} if matcher is None else {"matcher": matcher}
            group["hooks"] = [{"type": "command", "timeout": timeout, "command": hook_command(
                python, argument, workspace or "", bootstrap_tokens, prompt_tokens)}]
            table.setdefault(event, []).append(group)
        if json.dumps(settings.get("hooks"), sort_keys=True) == before:
            return []
        return [("update" if event in removed else "add",
                 f"hook {event}: {python} -m {HOOK_MODULE} {CLAUDE_HOOKS[event][0]}")
                for event in CLAUDE_HOOKS]

    def mcp(state: dict[str, Any]) -> list[tuple[str, str]]:
        servers = state.get("mcpServers")
        if servers is not None and not isinstance(servers, dict):
            raise InstallError(f"{state_path}: 'mcpServers' is not an object; fix it by hand first")
        servers = servers or {}
        if uninstall:
            if MCP_NAME not in servers:
                return []
            del servers[MCP_NAME]
            if not servers:
                state.pop("mcpServers", None)
            return [("remove", f"MCP server {MCP_NAME}")]
        entry = {"type": "stdio", **mcp_command(python, workspace or ""), "env": {}}
        old = servers.get(MCP_NAME)
        if old == entry:
            return []
        state["mcpServers"] = {**servers, MCP_NAME: entry}
        return [("update" if old else "add",
                 f"MCP server {MCP_NAME}: {' '.join([entry['command'], *entry['args']])}")]

    _edit(settings_path, "Claude Code settings", hooks, report)
    _edit(state_path, "Claude Code's MCP servers", mcp, report)
    if not uninstall:
        if workspace and not has_palace(workspace) and Settings.from_env().backend == "local":
            report.notes.append(f"warning: {workspace} holds no palace yet (no {Path(workspace) / PALACE_SUBDIR}). "
                                "If that is the folder you meant, the first memory creates it (or run "
                                f"`palace init --workspace {workspace}`); if not, install again with the "
                                "right --workspace.")
        report.notes.append("Restart Claude Code (or run /hooks) to load the hooks; `claude mcp list` "
                            "should show palace as connected.")
        if not os.environ.get("MEMORY_VECTOR_SERVICE_URL"):
            report.notes.append("Search is keyword-only in the hooks unless MEMORY_VECTOR_SERVICE_URL "
                                "points at a running sidecar (scripts/vector-service.py).")
    return report


# --------------------------------------------------------------------------- OpenClaw

def default_plugin_dir() -> Path:
    """integrations/openclaw in the source tree palace runs from."""
    return Path(__file__).resolve().parents[2] / "integrations" / "openclaw"


MEMORY_CORE = "memory-core"
# What OpenClaw's consent means, said once: install asks with it and notes it.
CONVERSATION_ACCESS = (
    "OpenClaw runs the hooks that see a conversation (before_prompt_build, agent_end) for a "
    "plugin it did not ship only with your consent: plugins.entries.palace.hooks."
    "allowConversationAccess. palace needs them to put the relevant memories in front of each "
    "prompt and to record each finished turn; what they see goes to the palace sidecar at {url} "
    "and nowhere else. Without it palace's tools and memory search still work, but there is no "
    "recall and no end-of-turn capture.")
MEMORY_CORE_NOTE = (
    "memory-core is disabled (plugins.entries.memory-core.enabled: false): with another plugin in "
    "the memory slot OpenClaw still loads it as that slot's dreaming companion, and its "
    "memory_search and memory_get would clash with palace's. Its dreaming, standing intents and "
    "`openclaw memory` go with it; `openclaw palace status|search|get` is palace's CLI. "
    "--uninstall enables it again.")


def openclaw_config_path(home: Path, explicit_home: bool) -> Path:
    """The file OpenClaw reads: OPENCLAW_CONFIG_PATH, else openclaw.json in
    OPENCLAW_STATE_DIR, else ~/.openclaw/openclaw.json (always that with --config-dir)."""
    if not explicit_home:
        configured = os.environ.get("OPENCLAW_CONFIG_PATH")
        if configured:
            return Path(configured).expanduser()
        state_dir = os.environ.get("OPENCLAW_STATE_DIR")
        if state_dir:
            return Path(state_dir).expanduser() / "openclaw.json"
    return home / ".openclaw" / "openclaw.json"


def _set_memory_core(entries: dict[str, Any], saved: dict[str, Any], uninstall: bool) -> list[tuple[str, str]]:
    """Disable memory-core on install (its previous state saved); put it back on uninstall."""
    entry = entries.get(MEMORY_CORE)
    if uninstall:
        if "memoryCoreEnabled" not in saved or not isinstance(entry, dict) or entry.get("enabled") is not False:
            return []
        previous = saved["memoryCoreEnabled"]
        if previous is None:
            entry.pop("enabled", None)
        else:
            entry["enabled"] = previous
        if not entry:
            del entries[MEMORY_CORE]
        return [("update", f"plugins.entries.{MEMORY_CORE}: enabled again")]
    if isinstance(entry, dict) and entry.get("enabled") is False:
        return []
    if entry is not None and not isinstance(entry, dict):
        raise InstallError(f"plugins.entries.{MEMORY_CORE} is not an object; fix it by hand first")
    saved["memoryCoreEnabled"] = (entry or {}).get("enabled")
    entries[MEMORY_CORE] = {**(entry or {}), "enabled": False}
    return [("update" if entry else "add", f"plugins.entries.{MEMORY_CORE}.enabled: false "
             "(its memory tools would clash with palace's)")]


def install_openclaw(home: Path, *, explicit_home: bool, plugin_dir: Path, url: str, token: str | None,
                     uninstall: bool, workspace: str | None, conversation_access: bool = False) -> Report:
    """The plugin folder under ``plugins.load.paths``, the memory slot, ``plugins.entries.palace``
    (the sidecar's URL and token in ``config``; ``hooks.allowConversationAccess`` when
    ``conversation_access``, the user's consent) and memory-core disabled; ``uninstall``
    takes out what install added and gives back what it changed (palace-install.json)."""
    report = Report("openclaw", uninstall)
    config_path = openclaw_config_path(home, explicit_home)
    state_path = config_path.with_name(STATE_FILE)
    plugin_path = str(plugin_dir.resolve())
    saved = read_json(state_path, what="palace's install record")
    if not uninstall:
        _check_plugin_built(plugin_dir)

    def change(config: dict[str, Any]) -> list[tuple[str, str]]:
        plugins = _Plugins.of(config, config_path)
        if uninstall:
            done = _take_out_openclaw(plugins, plugin_path, saved)
        else:
            entry = _palace_entry(url, token, conversation_access)
            done = _put_in_openclaw(plugins, plugin_path, saved, entry, url)
        plugins.prune(config)
        return done

    _edit(config_path, "OpenClaw's config", change, report)
    if uninstall:
        _forget_install(state_path, report)
    else:
        _record_install(state_path, saved, report)
        _openclaw_notes(report, config_path, saved, url=url, conversation_access=conversation_access,
                        workspace=workspace, plugin_path=plugin_path)
    return report


def _check_plugin_built(plugin_dir: Path) -> None:
    for needed in ("openclaw.plugin.json", "dist/index.js"):
        if not (plugin_dir / needed).is_file():
            raise InstallError(
                f"{plugin_dir / needed} is missing: build the plugin first "
                f"(cd {plugin_dir} && npm ci && npx tsc), or pass --plugin-dir")


@dataclass
class _Plugins:
    """The tables of OpenClaw's ``plugins`` that install edits, made when missing (and
    taken out again by ``prune`` when left empty)."""

    table: dict[str, Any]
    load: dict[str, Any]
    paths: list[Any]
    slots: dict[str, Any]
    entries: dict[str, Any]

    @classmethod
    def of(cls, config: dict[str, Any], config_path: Path) -> "_Plugins":
        plugins = config.setdefault("plugins", {})
        if not isinstance(plugins, dict):
            raise InstallError(f"{config_path}: 'plugins' is not an object; fix it by hand first")
        load = plugins.setdefault("load", {})
        return cls(plugins, load, load.setdefault("paths", []), plugins.setdefault("slots", {}),
                   plugins.setdefault("entries", {}))

    def prune(self, config: dict[str, Any]) -> None:
        plugins = self.table
        for key, table in (("load", self.load), ("slots", self.slots), ("entries", self.entries)):
            if not table:
                plugins.pop(key, None)
        if not self.load.get("paths") and "load" in plugins:
            plugins["load"].pop("paths", None)
            if not plugins["load"]:
                plugins.pop("load")
        if not plugins:
            config.pop("plugins", None)


def _take_out_openclaw(plugins: _Plugins, plugin_path: str, saved: dict[str, Any]) -> list[tuple[str, str]]:
    done: list[tuple[str, str]] = []
    paths, slots, entries, allow = plugins.paths, plugins.slots, plugins.entries, plugins.table.get("allow")
    if plugin_path in paths or saved.get("pluginPath") in paths:
        plugins.load["paths"] = [p for p in paths if p not in (plugin_path, saved.get("pluginPath"))]
        done.append(("remove", f"plugins.load.paths: {saved.get('pluginPath') or plugin_path}"))
    if slots.get("memory") == PLUGIN_ID:
        previous = saved.get("previousMemorySlot")
        if previous:
            slots["memory"] = previous
            done.append(("update", f"plugins.slots.memory: {previous} (as before)"))
        else:
            del slots["memory"]
            done.append(("remove", "plugins.slots.memory (OpenClaw's default again)"))
    if PLUGIN_ID in entries:
        del entries[PLUGIN_ID]
        done.append(("remove", f"plugins.entries.{PLUGIN_ID}"))
    done.extend(_set_memory_core(entries, saved, uninstall=True))
    if isinstance(allow, list) and saved.get("addedToAllow") and PLUGIN_ID in allow:
        plugins.table["allow"] = [a for a in allow if a != PLUGIN_ID]
        done.append(("remove", f"plugins.allow: {PLUGIN_ID}"))
    return done


def _palace_entry(url: str, token: str | None, conversation_access: bool) -> dict[str, Any]:
    """What install puts in ``plugins.entries.palace`` (merged into what is there)."""
    entry: dict[str, Any] = {"enabled": True, "config": {"url": url, **({"token": token} if token else {})}}
    if conversation_access:
        entry["hooks"] = {"allowConversationAccess": True}
    return entry


def _put_in_openclaw(plugins: _Plugins, plugin_path: str, saved: dict[str, Any], entry: dict[str, Any],
                     url: str) -> list[tuple[str, str]]:
    done: list[tuple[str, str]] = []
    paths, slots, entries, allow = plugins.paths, plugins.slots, plugins.entries, plugins.table.get("allow")
    if plugin_path not in paths:
        paths.append(plugin_path)
        done.append(("add", f"plugins.load.paths: {plugin_path}"))
    if slots.get("memory") != PLUGIN_ID:
        saved["previousMemorySlot"] = slots.get("memory")
        slots["memory"] = PLUGIN_ID
        done.append(("update", f"plugins.slots.memory: {PLUGIN_ID} (was "
                     f"{saved['previousMemorySlot'] or 'the default, memory-core'})"))
    done.extend(_merge_palace_entry(entries, entry, url))
    done.extend(_set_memory_core(entries, saved, uninstall=False))
    if isinstance(allow, list) and allow and PLUGIN_ID not in allow:
        allow.append(PLUGIN_ID)
        saved["addedToAllow"] = True
        done.append(("add", f"plugins.allow: {PLUGIN_ID}"))
    saved["pluginPath"] = plugin_path
    return done


def _merge_palace_entry(entries: dict[str, Any], entry: dict[str, Any], url: str) -> list[tuple[str, str]]:
    """``entry`` over the palace entry already there: its config and hooks merged key by key."""
    old = entries.get(PLUGIN_ID)
    merged = {**(old or {}), "enabled": entry["enabled"],
              "config": {**((old or {}).get("config") or {}), **entry["config"]}}
    if "hooks" in entry:
        merged["hooks"] = {**((old or {}).get("hooks") or {}), **entry["hooks"]}
    if old == merged:
        return []
    entries[PLUGIN_ID] = merged
    what = f"plugins.entries.{PLUGIN_ID}: sidecar {url}"
    if "hooks" in entry and ((old or {}).get("hooks") or {}).get("allowConversationAccess") is not True:
        what += ", hooks.allowConversationAccess: true"
    return [("update" if old else "add", what)]


def _forget_install(state_path: Path, report: Report) -> None:
    if state_path.exists():
        state_path.unlink()
        report.changes.append(Change(str(state_path), "remove", "palace's install record"))
    report.notes.append("A record that `openclaw plugins install --link` made stays with OpenClaw: "
                        "`openclaw plugins uninstall palace` removes it.")


def _record_install(state_path: Path, saved: dict[str, Any], report: Report) -> None:
    """palace-install.json: what --uninstall gives back; rewritten only when that changed."""
    saved["installedAt"] = datetime.now(timezone.utc).isoformat(timespec="seconds")
    previous_state = read_json(state_path, what="palace's install record")
    if {k: v for k, v in saved.items() if k != "installedAt"} != \
            {k: v for k, v in previous_state.items() if k != "installedAt"}:
        write_json(state_path, saved, previous_state)
        report.changes.append(Change(str(state_path), "add", "palace's install record (for --uninstall)"))


def _openclaw_notes(report: Report, config_path: Path, saved: dict[str, Any], *, url: str,
                    conversation_access: bool, workspace: str | None, plugin_path: str) -> None:
    if not conversation_access:
        allowed = read_json(config_path, what="OpenClaw's config").get("plugins", {}).get(
            "entries", {}).get(PLUGIN_ID, {}).get("hooks", {}).get("allowConversationAccess") is True
        if not allowed:
            report.notes.append("warning: conversation access not given, so recall and end-of-turn capture "
                                "stay off. " + CONVERSATION_ACCESS.format(url=url) + " Install again with "
                                "--allow-conversation-access to give it.")
    if saved.get("memoryCoreEnabled", False) is not False:
        report.notes.append(MEMORY_CORE_NOTE)
    sidecar = f"python scripts/vector-service.py --workspace {workspace or '<workspace>'}"
    report.notes.append(f"Start the sidecar the plugin talks to: {sidecar} (listens on {url}).")
    report.notes.append("If you did not run `openclaw plugins install --link "
                        f"{plugin_path}` first, OpenClaw does not know where the plugin came from and "
                        "`openclaw plugins doctor` says so; run it once (it asks you to review the "
                        "plugin's capabilities).")
    report.notes.append("Then restart the gateway (or let it reload). `openclaw plugins inspect palace "
                        "--runtime --json` lists the hooks and tools (a blocked hook shows up under "
                        "diagnostics); `openclaw palace status` says whether recall and capture may run.")


# --------------------------------------------------------------------------- click

def _emit(report: Report, as_json: bool) -> None:
    if as_json:
        click.echo(json.dumps(report.to_dict(), indent=2, ensure_ascii=False))
        return
    verb = "Uninstalled" if report.uninstall else "Installed"
    click.echo(f"{verb} palace for {report.host}:")
    for change in report.changes:
        click.echo(f"  {change.action:9} {change.what}   [{change.file}]")
    backups = sorted({c.backup for c in report.changes if c.backup})
    for backup in backups:
        click.echo(f"  backup    {backup}")
    for note in report.notes:
        click.echo(f"  note: {note}")


def _run(action: Callable[[], Report], as_json: bool) -> None:
    try:
        _emit(action(), as_json or bool(getattr(_group_options(), "json", False)))
    except InstallError as exc:
        click.echo(f"palace install: {exc}", err=True)
        sys.exit(3)


def _home(config_dir: str | None) -> Path:
    return Path(config_dir).expanduser() if config_dir else Path.home()


def _group_options() -> object:
    """What `palace -w DIR --json install …` gave the main group (None when run alone)."""
    return click.get_current_context().find_root().obj


def _workspace(workspace: str | None, uninstall: bool) -> str | None:
    workspace = workspace or getattr(_group_options(), "workspace", None)
    if uninstall:
        return workspace
    if not workspace:
        raise click.UsageError("give the palace workspace with --workspace DIR (or MEMORY_WORKSPACE_DIR): "
                               "the hooks and the MCP server read and write memories there")
    return str(Path(workspace).expanduser().resolve())


workspace_option = click.option("--workspace", "-w", envvar="MEMORY_WORKSPACE_DIR",
                                help="palace workspace (default MEMORY_WORKSPACE_DIR)")
config_dir_option = click.option("--config-dir", help="home folder holding the host's config (default ~)")
uninstall_option = click.option("--uninstall", is_flag=True, help="remove what install added")
json_option = click.option("--json", "as_json", is_flag=True, help="one JSON document on stdout")


@click.group("install", help="Wire palace into Claude Code or OpenClaw (undo with --uninstall).")
def install() -> None:
    pass


@install.command("claude-code")
@workspace_option
@config_dir_option
@uninstall_option
@json_option
@click.option("--python", default=sys.executable, show_default=True,
              help="the Python that runs the hooks and the MCP server (palace installed in it)")
@click.option("--bootstrap-tokens", type=click.IntRange(50, 100_000), default=1500, show_default=True,
              help="budget of the session-start context")
@click.option("--prompt-tokens", type=click.IntRange(50, 100_000), default=800, show_default=True,
              help="budget of the memories added to each prompt")
def install_claude_code_command(workspace, config_dir, uninstall, as_json, python, bootstrap_tokens,
                                prompt_tokens) -> None:
    """Hooks in ~/.claude/settings.json and the MCP server in ~/.claude.json."""
    ws = _workspace(workspace, uninstall)
    _run(lambda: install_claude_code(_home(config_dir), workspace=ws, python=python, uninstall=uninstall,
                                     bootstrap_tokens=bootstrap_tokens, prompt_tokens=prompt_tokens),
         as_json)


@install.command("openclaw")
@workspace_option
@config_dir_option
@uninstall_option
@json_option
@click.option("--url", envvar="MEMORY_VECTOR_SERVICE_URL", default=DEFAULT_SIDECAR_URL, show_default=True,
              help="the palace sidecar the plugin talks to (MEMORY_VECTOR_SERVICE_URL)")
@click.option("--token", envvar="MEMORY_VECTOR_SERVICE_TOKEN", default=None,
              help="the sidecar's token, if it has one (MEMORY_VECTOR_SERVICE_TOKEN)")
@click.option("--plugin-dir", type=click.Path(file_okay=False), default=None,
              help="the built plugin (default: integrations/openclaw beside palace)")
@click.option("--allow-conversation-access/--no-conversation-access", "conversation_access", default=None,
              help="give (or not) OpenClaw's consent for the hooks that see conversations, which recall "
                   "and end-of-turn capture need (default: ask on a terminal, else not given)")
def install_openclaw_command(workspace, config_dir, uninstall, as_json, url, token, plugin_dir,
                             conversation_access) -> None:
    """The palace plugin in ~/.openclaw/openclaw.json, owning the memory slot."""
    ws = workspace if uninstall else _workspace(workspace, uninstall)
    if conversation_access is None and not uninstall:
        conversation_access = _ask_conversation_access(url, as_json)
    _run(lambda: install_openclaw(_home(config_dir), explicit_home=config_dir is not None,
                                  plugin_dir=Path(plugin_dir) if plugin_dir else default_plugin_dir(),
                                  url=url, token=token, uninstall=uninstall, workspace=ws,
                                  conversation_access=bool(conversation_access)), as_json)


def _interactive() -> bool:
    return sys.stdin.isatty() and sys.stdout.isatty()


def _ask_conversation_access(url: str, as_json: bool) -> bool:
    """The user's answer on a terminal; False (not given, and said so) without one."""
    if as_json or not _interactive():
        return False
    click.echo(CONVERSATION_ACCESS.format(url=url))
    return click.confirm("Allow palace conversation access in OpenClaw?", default=True)


COMMANDS = [install]
