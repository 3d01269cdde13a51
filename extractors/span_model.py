"""Statistical scientific-term span model (spaCy ``ner`` trained on SciERC).

The shipped pipeline lives in ``extractors/models/scierc/`` and is a small CNN
(``tok2vec`` + transition-based ``ner``) trained with the recipe in
``extractors/training/``.  It needs nothing but spaCy at run time: no network,
no hub models, no ``en_core_web_*`` package.

Examples
--------
>>> from extractors.span_model import predict_spans
>>> text = "We propose a CRF model for named entity recognition."
>>> for start, end, kind in next(predict_spans([text])):  # doctest: +SKIP
...     print(text[start:end], kind)
CRF model method
named entity recognition task
"""

from __future__ import annotations

import functools
from collections.abc import Iterable, Iterator
from pathlib import Path

import spacy

__all__ = [
    "LABEL_TO_TYPE",
    "MODEL_DIR",
    "SpanModelMissingError",
    "load_span_model",
    "predict_spans",
]

#: Directory of the shipped spaCy pipeline (loadable with ``spacy.load``).
MODEL_DIR: Path = Path(__file__).resolve().parent / "models" / "scierc"

#: SciERC entity labels -> project mention types.  ``generic`` mentions
#: ("our method", "this approach") are predicted so they do not get absorbed into
#: other types; consumers normally drop them.
LABEL_TO_TYPE: dict[str, str] = {
    "Method": "method",
    "Task": "task",
    "Metric": "metric",
    "Material": "dataset",
    "OtherScientificTerm": "concept",
    "Generic": "generic",
}


class SpanModelMissingError(FileNotFoundError):
    """Raised when the shipped span-model weights cannot be found."""


@functools.lru_cache(maxsize=1)
def load_span_model() -> spacy.Language:
    """Load (once) the shipped SciERC span model.

    Returns
    -------
    spacy.Language
        The pipeline (``tok2vec`` + ``ner``), cached for the life of the process.

    Raises
    ------
    SpanModelMissingError
        If ``extractors/models/scierc/`` is missing or incomplete (e.g. the
        package was installed without its package data).  Rebuild it with
        ``python extractors/training/train.py``.
    """
    if not (MODEL_DIR / "config.cfg").is_file() or not (MODEL_DIR / "ner" / "model").is_file():
        raise SpanModelMissingError(
            f"span model weights not found in {MODEL_DIR}; reinstall the package with its "
            "package data or retrain with `python extractors/training/train.py`"
        )
    return spacy.load(MODEL_DIR)


def predict_spans(
    texts: Iterable[str],
    *,
    batch_size: int = 64,
    n_process: int = 1,
    nlp: spacy.Language | None = None,
) -> Iterator[list[tuple[int, int, str]]]:
    """Find scientific-term mentions in raw texts.

    The texts are tokenised by the model's own tokenizer, so any plain text
    works; offsets refer to the text exactly as given.

    Parameters
    ----------
    texts : Iterable[str]
        Raw texts (e.g. abstracts).  Consumed lazily.
    batch_size : int, optional
        Number of texts per ``nlp.pipe`` batch.
    n_process : int, optional
        Worker processes for ``nlp.pipe`` (1 = in-process).
    nlp : spacy.Language, optional
        Pipeline to use instead of the shipped one (for evaluating candidates).

    Yields
    ------
    list of tuple of (int, int, str)
        For each input text, in order, the mentions as ``(start, end, type)``
        with character offsets (``end`` exclusive) and ``type`` one of the
        values of :data:`LABEL_TO_TYPE` (including ``"generic"``).
    """
    if nlp is None:
        nlp = load_span_model()
    for doc in nlp.pipe(texts, batch_size=batch_size, n_process=n_process):
        yield [
            (ent.start_char, ent.end_char, LABEL_TO_TYPE.get(ent.label_, "concept"))
            for ent in doc.ents
        ]
