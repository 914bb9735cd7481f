"""The store of record: Markdown files, frontmatter, atomic writes and locks, the journal."""
