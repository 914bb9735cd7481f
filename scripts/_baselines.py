"""The baselines palace is compared with, outside palace's pipeline:

- ``Bm25``: bm25s (Lucene BM25) over palace's own tokens (jieba search mode for
  Chinese, Porter stems for English), so the comparison is of ranking, not of
  tokenisers; no concepts, no time words, no graph;
- ``Dense``: brute-force cosine over every memory's chunks (palace.text.chunking), a
  memory scored by its best chunk: the plain dense retriever peers ship.
"""

from __future__ import annotations

from typing import Any, Sequence


def palace_tokens(text: str) -> list[str]:
    from palace.text.tokenize import stem, tokenize

    return [stem(t) for t in tokenize(text)]


class Bm25:
    def __init__(self, docs: Sequence[tuple[str, str]]):
        import bm25s

        self.ids = [doc_id for doc_id, _ in docs]
        self.retriever = bm25s.BM25()
        corpus = [palace_tokens(text) or ["\u2205"] for _, text in docs]
        self.retriever.index(bm25s.tokenize([" ".join(c) for c in corpus], stopwords=None, lower=False,
                                            show_progress=False, token_pattern=r"\S+"), show_progress=False)

    def search(self, query: str, k: int) -> list[str]:
        words = palace_tokens(query)
        if not words or not self.ids:
            return []
        vocab = self.retriever.vocab_dict
        ids = [vocab[w] for w in words if w in vocab]
        if not ids:
            return []
        found, scores = self.retriever.retrieve([[w for w in words if w in vocab]], k=min(k, len(self.ids)),
                                                show_progress=False, n_threads=1)
        return [self.ids[int(i)] for i, s in zip(found[0], scores[0]) if s > 0]


class Dense:
    def __init__(self, docs: Sequence[tuple[str, str]], embedder: Any):
        import numpy as np

        from palace.text.chunking import chunk_text

        self.embedder = embedder
        self.ids = [doc_id for doc_id, _ in docs]
        texts, owners = [], []
        for number, (_, text) in enumerate(docs):
            for piece in chunk_text(text, embedder.max_chars):
                texts.append(piece)
                owners.append(number)
        vectors = np.asarray(embedder.embed_documents(texts), dtype=np.float32) if texts else np.zeros((0, 1))
        norms = np.linalg.norm(vectors, axis=1, keepdims=True)
        self.vectors = vectors / np.where(norms == 0, 1, norms)
        self.owners = np.asarray(owners, dtype=np.int64)

    def search(self, query: str, k: int) -> list[str]:
        import numpy as np

        if not len(self.owners):
            return []
        q = np.asarray(self.embedder.embed_query(query), dtype=np.float32)
        q = q / (np.linalg.norm(q) or 1.0)
        cosines = self.vectors @ q
        best = np.full(len(self.ids), -np.inf, dtype=np.float32)
        np.maximum.at(best, self.owners, cosines)
        order = np.argsort(-best)[:k]
        return [self.ids[int(i)] for i in order if np.isfinite(best[i])]


def live_docs(pm: Any) -> list[tuple[str, str]]:
    """(id, text) of every active memory of a local palace, as its vectors embed it."""
    from palace.models import embed_text

    rows = pm.index.conn.execute("SELECT id, content, summary FROM memories WHERE status = 'active' ORDER BY seq")
    return [(row[0], embed_text(row[1], row[2])) for row in rows]
