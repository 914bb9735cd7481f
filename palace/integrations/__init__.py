"""Host integrations: Claude Code hook commands (``claude_code``) and one-step
installers for Claude Code and OpenClaw (``install``). The OpenClaw plugin itself
is TypeScript, in ``integrations/openclaw/`` at the repository root."""
