"""Features built on the manager's public API: context, summary, tasks, persona,
experiences, the sidecar's provider, and a local PostgreSQL to try the shared palace on."""
