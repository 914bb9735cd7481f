"""Capture: agent sessions and transcripts become observation, session and task memories."""
