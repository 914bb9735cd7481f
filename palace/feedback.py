"""Query expansion from the palace itself (issue 11): pseudo-relevance feedback and
vector neighbours.

- **Pseudo-relevance feedback** (``feedback_expansions``): the most distinctive
  words of the best few first-pass results (term frequency in them × idf in the
  palace), added to the query at a weight below any concept expansion, and the
  keyword retriever run again. It finds what the first pass ranked low because it
  shares the answer's vocabulary, not the question's.
- **Vector feedback** (``feedback_vector``, Rocchio 1971 on embeddings): the
  question's vector moved toward the best first results' closest chunks, and the
  vector retriever run again, so memories like the answers found (a second session
  about the same event) rise even when they resemble the question less.
- **Vector neighbours** (``VectorNeighbours``, the concept expander's
  ``neighbour_fn``): for a query word, words of the palace whose embedding is close
  to the word's. Candidates are the distinctive words of the memories nearest the
  word, so no vocabulary is embedded ahead of time.

None of them makes a result strong: the floor's coverage counts a query word's own
expansions only, and a result's cosine shown and judged is to the question itself,
not to the moved vector (search.keep_question_evidence). Feedback is on
and neighbours off, as measured on the tuning halves (settings MEMORY_FEEDBACK,
MEMORY_NEIGHBOURS; figures in docs/search-quality.md).
"""

from __future__ import annotations

from collections import Counter
from typing import Any, Iterable, Sequence

from .concepts import Expansion
from .relevance import smoothed_idf
from .tokenize import has_han, tokenize

FEEDBACK_DOCS = 3      # first-pass results read
FEEDBACK_TERMS = 8     # words added
FEEDBACK_WEIGHT = 0.3  # the best feedback word's weight (own words: 1.0, synonyms 0.6)
MIN_WEIGHT = 0.05
# how far vector feedback moves the question toward its best results (Rocchio's beta,
# alpha 1). 0 = off: at 0.3 it was measured on the tuning halves (docs/search-quality.md,
# "Round 3") to lift LoCoMo R@5 by 0.003 and zh MRR by 0.002 but to cost LoCoMo R@10
# 0.0002 (palace fell just behind BM25 alone) and LongMemEval ndcg 0.0001: not kept
FEEDBACK_VECTOR_SHARE = 0.0


def feedback_vector(question: Any, results: Sequence[Any], share: float | None = None) -> Any:
    """The question's (normalised) vector plus ``share`` (default FEEDBACK_VECTOR_SHARE)
    × the mean of the results' vectors, normalised again; the question itself when
    there are no results."""
    import numpy as np

    share = FEEDBACK_VECTOR_SHARE if share is None else share
    query = np.asarray(question, dtype=np.float32)
    if not len(results) or share <= 0:
        return query
    moved = query + share * np.mean(np.stack([np.asarray(r, dtype=np.float32) for r in results]), axis=0)
    norm = float(np.linalg.norm(moved))
    return moved / norm if norm > 0 else query


def distinctive_words(texts: Sequence[str], index: Any, exclude: Iterable[str],
                      limit: int, *, shared: bool = True) -> list[tuple[str, float]]:
    """(word, score in (0, 1]) for the words of ``texts`` that most set them apart from
    the palace: frequency in them × idf, best first, ``exclude`` left out. With
    ``shared``, a word must occur in at least two of the texts when there are
    several (for feedback: one memory's odd word is not what the answers share)."""
    excluded = set(exclude)
    counts: dict[str, float] = {}
    holders: Counter[str] = Counter()
    for text in texts:
        words = [w for w in tokenize(text) if w not in excluded and _worth_adding(w)]
        if not words:
            continue
        total = len(words)
        for word, n in Counter(words).items():
            counts[word] = counts.get(word, 0.0) + n / total
            holders[word] += 1
    need = 2 if shared and len(texts) > 1 else 1
    candidates = [w for w in counts if holders[w] >= need]
    if not candidates:
        return []
    docs, held = index.term_holders(candidates)
    scored = sorted(((counts[w] * smoothed_idf(len(held[w]), docs), w) for w in candidates
                     if len(held[w]) < docs), reverse=True)[:limit]
    if not scored or scored[0][0] <= 0:
        return []
    best = scored[0][0]
    return [(word, score / best) for score, word in scored]


# function words the stop list (palace.tokenize) keeps because they can matter in a
# query of one's own ("without sugar"), but that are never a word's *neighbour*
FUNCTION_WORDS = frozenset("""without within after before because while during since until
    though although unless whether either neither another every anyone someone nothing
    never always often still already yet even much many little less least""".split())


def _worth_adding(word: str) -> bool:
    if word.isdigit() or len(word) < 2 or word in FUNCTION_WORDS:
        return False
    return has_han(word) or len(word) >= 3


def feedback_expansions(texts: Sequence[str], index: Any, own_terms: Sequence[str]) -> list[Expansion]:
    """Weighted words from the first pass's best results (``texts``), as expansions."""
    picked = distinctive_words(texts[:FEEDBACK_DOCS], index, own_terms, FEEDBACK_TERMS)
    return [Expansion(word, round(FEEDBACK_WEIGHT * score, 2), "feedback", "feedback", "")
            for word, score in picked if FEEDBACK_WEIGHT * score >= MIN_WEIGHT]


class VectorNeighbours:
    """``neighbour_fn`` for the concept expander: palace words close to a query word.

    ``embedder`` embeds; ``nearest(vector, k)`` gives the texts of the k memories
    nearest a vector. The candidate words (distinctive words of those memories)
    are embedded once per process and kept."""

    NEAREST = 5
    CANDIDATES = 24
    MIN_SIMILARITY = 0.6  # cosine between the two words' embeddings

    def __init__(self, embedder: Any, nearest: Any, index: Any, vectors: dict[str, Any] | None = None,
                 min_similarity: float | None = None):
        self.embedder, self.nearest, self.index = embedder, nearest, index
        if min_similarity is not None:
            self.MIN_SIMILARITY = min_similarity
        self._vectors: dict[str, Any] = {} if vectors is None else vectors

    def _embed(self, words: Sequence[str]) -> list[Any]:
        # embedded as the query word is (e5 reads "query:" and "passage:" differently),
        # one by one: a handful of words, kept for the process
        for word in words:
            if word not in self._vectors:
                self._vectors[word] = self.embedder.embed_query(word)
        return [self._vectors[w] for w in words]

    def __call__(self, word: str) -> list[tuple[str, float]]:
        import numpy as np

        query = np.asarray(self.embedder.embed_query(word), dtype=float)
        texts = self.nearest(query, self.NEAREST)
        own = set(tokenize(word))
        candidates = [w for w, _ in distinctive_words(texts, self.index, own, self.CANDIDATES, shared=False)]
        if not candidates:
            return []
        vectors = np.asarray(self._embed(candidates), dtype=float)
        norms = np.linalg.norm(vectors, axis=1) * (np.linalg.norm(query) or 1.0)
        similarity = vectors @ query / np.where(norms > 0, norms, 1.0)
        return [(w, float(s)) for w, s in zip(candidates, similarity) if s >= self.MIN_SIMILARITY]


_WORD_VECTORS: dict[str, dict[str, Any]] = {}  # model name → word → vector, for the process


def neighbours_for(embedder: Any, nearest: Any, index: Any) -> VectorNeighbours:
    """A ``VectorNeighbours`` sharing the process's word vectors for this model."""
    from .relevance import scale_for

    # a model whose cosines all sit high (e5: unrelated texts at 0.86) needs a higher bar:
    # at least the cosine a memory that answers a query typically has with it
    scale = scale_for(str(embedder.name))
    bar = max(VectorNeighbours.MIN_SIMILARITY, scale.strong if scale.measured else 0.0)
    return VectorNeighbours(embedder, nearest, index, _WORD_VECTORS.setdefault(str(embedder.name), {}),
                            min_similarity=bar)
