"""The embedding side of palace: models (``vector_service.model``) and the HTTP
sidecar that serves them (``vector_service.app``, run by scripts/vector-service.py).

Nothing heavy is imported here: torch and sentence-transformers load only when a
model does.
"""

from .model import EmbeddingModel, default_query_instruction, load_model, model_id

__all__ = ["EmbeddingModel", "default_query_instruction", "load_model", "model_id"]
