"""Search: one pipeline that reads top to bottom (``pipeline.search``).

1. ``request``     the query, ``top_k``, the filters and the period its time words name
2. ``query``       the words analysed once: terms, informative units, expansions, tags
3. ``retrievers``  keyword (BM25), vector, graph and tag candidates
4. ``fusion``      one relevance per candidate
5. ``ranking``     relevance placed in time, mixed with importance and decay
   ``newer``       of two close results on the same topic, the newer first
6. ``judge``       strong or weak, by a list of small rules, each with its reason
7. ``explain``     every number behind each result

``evidence`` measures what the judge reads; ``calibration`` holds every measured number.
"""

from palace.search.pipeline import SearchServices, search

__all__ = ["SearchServices", "search"]
