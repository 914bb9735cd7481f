"""Compatibility path: the model backends live in ``palace.embedders.models`` now
(vector_service depends on palace, never the reverse)."""

from palace.embedders.models import (  # noqa: F401  (re-exported for old imports)
    BGE_EN_QUERY_INSTRUCTION,
    BGE_ZH_QUERY_INSTRUCTION,
    USE_MAX_CHARS,
    USE_MODEL_ID,
    USE_MULTILINGUAL,
    EmbeddingModel,
    backend_importable,
    default_query_instruction,
    load_model,
    model_id,
)

__all__ = [
    "BGE_EN_QUERY_INSTRUCTION", "BGE_ZH_QUERY_INSTRUCTION", "USE_MAX_CHARS", "USE_MODEL_ID",
    "USE_MULTILINGUAL", "EmbeddingModel", "backend_importable", "default_query_instruction",
    "load_model", "model_id",
]
