"""The embedding sidecar: the HTTP app (``vector_service.app``, run by
scripts/vector-service.py) that serves palace's embedding models over HTTP.

It depends on palace, never the reverse: the models themselves live in
``palace.embedders.models`` (re-exported here and in ``vector_service.model`` for old
imports). Nothing heavy is imported here: torch and sentence-transformers load only
when a model does.
"""

from palace.embedders.models import EmbeddingModel, default_query_instruction, load_model, model_id

__all__ = ["EmbeddingModel", "default_query_instruction", "load_model", "model_id"]
