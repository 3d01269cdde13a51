"""Statistical scientific-term span model (spaCy ``ner`` trained on SciERC).

The shipped pipeline lives in ``extractors/models/scierc/`` and is a small CNN
(``tok2vec`` + transition-based ``ner``) trained with the recipe in
``extractors/training/``.  It needs nothing but spaCy at run time: no network,
no hub models, no ``en_core_web_*`` package.

Examples
--------
>>> from extractors.span_model import predict_spans
>>> text = "We propose a CRF model for named entity recognition."
>>> for start, end, kind in next(predict_spans([text])):
...     print(text[start:end], kind)
CRF model method
named entity recognition method
"""

from __future__ import annotations

import functools
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

import spacy
from spacy.pipeline import Tok2Vec
from spacy.tokens import Doc
from thinc.api import Model, NumpyOps
from threadpoolctl import threadpool_limits

__all__ = [
    "LABEL_TO_TYPE",
    "MODEL_DIR",
    "SpanModelMissingError",
    "TOK2VEC_OPS",
    "load_model",
    "load_span_model",
    "predict_spans",
    "tok2vec_per_text",
    "trim_edges",
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


#: Tokens that (almost) never begin or end a SciERC mention (0-2 of ~4,600 train
#: mentions); the CNN tagger sometimes runs a span onto them, so they are trimmed.
_EDGE_WORDS = """a an the this that these those its their our his her such each every any some
    of and or nor but for in on to with by from under over at into onto via than
    between among within without through about against upon per toward towards
    is are was were be been being has have had can could may might will would should
    which who whom whose where when while whereas what how
    we it they them he she i you"""
_EDGE_STOPWORDS: frozenset[str] = frozenset(_EDGE_WORDS.split())
_OPEN, _CLOSE = "([{", ")]}"


def trim_edges(doc: Doc, start: int, end: int) -> tuple[int, int]:
    """Token bounds of ``doc[start:end]`` without function words and unbalanced brackets
    or punctuation at its edges (the model sometimes runs a span onto them).

    >>> import spacy
    >>> doc = spacy.blank("en")("We train the CRF model of (")
    >>> s, e = trim_edges(doc, 2, len(doc))
    >>> doc[s:e].text
    'CRF model'
    """
    while start < end:
        first, last = doc[start], doc[end - 1]
        if first.lower_ in _EDGE_STOPWORDS or (first.is_punct and first.text not in _OPEN):
            start += 1
        elif last.lower_ in _EDGE_STOPWORDS or (last.is_punct and last.text not in _CLOSE):
            end -= 1
        elif first.text in _OPEN and not any(t.text in _CLOSE for t in doc[start + 1 : end]):
            start += 1
        elif last.text in _CLOSE and not any(t.text in _OPEN for t in doc[start : end - 1]):
            end -= 1
        else:
            break
    return start, end


class SpanModelMissingError(FileNotFoundError):
    """Raised when the shipped span-model weights cannot be found."""


def load_model(path: str | Path, **options: Any) -> spacy.Language:
    """``spacy.load(path, **options)``, its ``tok2vec`` run as :func:`tok2vec_per_text`
    makes it run."""
    nlp = spacy.load(path, **options)
    if "tok2vec" in nlp.pipe_names:
        tok2vec_per_text(nlp.get_pipe("tok2vec"))
    return nlp


#: The ``tok2vec`` layers' matrix products: NumPy's BLAS (OpenBLAS in NumPy's wheels)
#: instead of thinc's default, BLIS.
TOK2VEC_OPS = NumpyOps(use_blis=False)


def tok2vec_per_text(pipe: Tok2Vec) -> None:
    """Let ``pipe`` multiply with :data:`TOK2VEC_OPS`, a text at a time, on one BLAS thread.

    BLIS picks its kernels by the processor it recognises, and the ``blis`` thinc brings
    (1.3) does not know AMD's Zen 5 (family 26): there it runs its generic reference
    kernel, 3x slower than NumPy's OpenBLAS on the span model's products (4,096 x 288 x
    288 on one core: 16.1 against 5.4 ms), and the span model took half of an extraction
    worker's time (bench/README.md, issue 17). But OpenBLAS gives a row a result that
    depends on how many rows the product has and where the row is among them (BLIS does
    not), and on how many threads share it: a text's vectors would depend on the texts
    batched with it, and an incremental build (other batches) could differ from a full
    one. A text alone, on one thread, is always the same product. The ``ner`` stays on
    BLIS: it scores the batch's texts together, and its products are small beside the
    ``tok2vec``'s (~32,000 multiply-adds a token against ~442,000).
    """
    for layer in pipe.model.walk():
        layer.ops = TOK2VEC_OPS
    pipe.predict = _PerText(pipe.model)  # type: ignore[method-assign]


class _PerText:
    """A ``tok2vec`` model's ``Tok2Vec.predict``, a text at a time on one BLAS thread (an
    object, not a closure: the pipe still pickles, as spaCy's ``n_process`` may need)."""

    def __init__(self, model: Model) -> None:
        self.model = model

    def __call__(self, docs: Iterable[Doc]) -> list:
        model = self.model
        width = model.get_dim("nO")
        with threadpool_limits(limits=1, user_api="blas"):
            return [model.predict([doc])[0] if len(doc) else model.ops.alloc((0, width))
                    for doc in docs]


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
    return load_model(MODEL_DIR)


def predict_spans(
    texts: Iterable[str],
    *,
    batch_size: int = 64,
    n_process: int = 1,
    nlp: spacy.Language | None = None,
    trim: bool = True,
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
    trim : bool, optional
        Trim leading/trailing function words ("of", "the", "under"...) and
        unbalanced brackets/punctuation off predicted spans (default True).

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
        spans = []
        for ent in doc.ents:
            start, end = trim_edges(doc, ent.start, ent.end) if trim else (ent.start, ent.end)
            if start < end:
                span = doc[start:end]
                spans.append(
                    (span.start_char, span.end_char, LABEL_TO_TYPE.get(ent.label_, "concept"))
                )
        yield spans
