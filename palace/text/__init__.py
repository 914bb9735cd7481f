"""Text: the only place that segments, tags and stems words, and the word lists."""
