"""Relation arguments: their own candidate spans, and a span classifier that picks them.

A relation's arguments are not the graph's concepts: SciERC counts Generic spans ("it",
"the method", "our model") and spans the span model cuts wrongly ("rigidly-moving object
under distant illumination" is two arguments). So the relation extractor reads its own
candidates of each text, from five sources (each candidate keeps the first that made it):

``m``
    the span model's spans (Generic ones included), with their type;
``p``
    pronouns and words that stand for a term ("it", "this", "former", "latter" ...);
``s``
    the parts of a span-model span split at prepositions, conjunctions and commas
    ("models of verbal interaction" → "models", "verbal interaction");
``k``
    every suffix of a run of words without stop words or punctuation ("constrains surface
    orientation" → "surface orientation", "orientation"): English noun phrases end in
    their head.

A multinomial linear classifier over span features (first, last and inner words, the words
around, word shapes, length, the sources; :func:`span_features`) gives each candidate the
probability of "no argument" and of each SciERC type; :func:`select` keeps the most likely
non-overlapping candidates (SciERC's entities are flat) above a threshold. The weights are
trained on SciERC train by ``extractors/training/train_relations.py`` and shipped in
``extractors/models/relations/arguments.*``.

Examples
--------
>>> text = "We apply it to models of verbal interaction ."
>>> spans = candidate_spans(text, [(15, 43, "method")])
>>> sorted(text[a:b] for (a, b), (src, _) in spans.items() if src in "ps")
['it', 'models', 'verbal interaction']
"""

from __future__ import annotations

import bisect
import functools
import json
import re
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import TypeVar

import numpy as np
from spacy.lang.en.stop_words import STOP_WORDS

from extractors.linear import SparseLinear
from extractors.relations import WORD, Candidate

__all__ = [
    "ARGUMENT_TYPES",
    "ArgumentModel",
    "candidate_spans",
    "select",
    "span_features",
]

#: Classes of a candidate: index 0 is "no argument", then the span model's types.
ARGUMENT_TYPES: tuple[str | None, ...] = (
    None, "generic", "method", "task", "metric", "dataset", "concept")

_PRONOUNS = frozenset({
    "it", "they", "them", "this", "these", "those", "that", "former", "latter", "its",
    "their", "which", "one", "ones"})
_SPLIT = frozenset({
    "of", "for", "in", "on", "under", "with", "to", "by", "from", "and", "or", "via", "using",
    "over", "between", "into", "as", "at", "through", "against", "without", "within", ","})
_STOP = frozenset(STOP_WORDS) | {"using", "via"}
_T = TypeVar("_T")
_HAS_WORD = re.compile(r"\w")
_UPPER, _LOWER, _DIGIT, _REPEAT = (re.compile(p) for p in (r"[A-Z]", r"[a-z]", r"\d",
                                                            r"(.)\1+"))


@functools.lru_cache(maxsize=1 << 16)
def _shape(word: str) -> str:
    """``Xx``-style shape of a word, runs of a class cut to two (``BERT-2`` → ``XX-d``)."""
    s = _DIGIT.sub("d", _LOWER.sub("x", _UPPER.sub("X", word)))
    return _REPEAT.sub(r"\1\1", s)


def _tokens(text: str) -> list[tuple[int, int, str]]:
    return [(m.start(), m.end(), m.group()) for m in WORD.finditer(text)]


def candidate_spans(text: str, model: Iterable[tuple[int, int, str]],
                    toks: list[tuple[int, int, str]] | None = None
                    ) -> dict[tuple[int, int], tuple[str, str]]:
    """Candidate argument spans of ``text``: ``(start, end) -> (source, type)``.

    ``model`` are the span model's ``(start, end, type)``; the source is the first of
    ``m``, ``p``, ``s``, ``k`` (module docstring) that gives the span, the type the span
    model's for ``m`` and ``"concept"`` otherwise. ``toks`` are the text's words, when
    already split.

    >>> text = "The former constrains surface orientation ."
    >>> spans = candidate_spans(text, [])
    >>> sorted(text[a:b] for a, b in spans)
    ['constrains surface orientation', 'former', 'orientation', 'surface orientation']
    """
    if toks is None:
        toks = _tokens(text)
    starts = {a: i for i, (a, _, _) in enumerate(toks)}
    ends = {b: i for i, (_, b, _) in enumerate(toks)}
    out: dict[tuple[int, int], tuple[str, str]] = {}
    for a, b, t in sorted(model):
        if a < b:
            out.setdefault((a, b), ("m", t))
    for a, b, w in toks:
        if w.lower() in _PRONOUNS:
            out.setdefault((a, b), ("p", "concept"))
    for (a, b), (src, _) in list(out.items()):
        if src != "m" or a not in starts or b not in ends:
            continue
        i, j = starts[a], ends[b] + 1
        cuts = [k for k in range(i, j) if toks[k][2].lower() in _SPLIT]
        bounds = [i - 1, *cuts, j]
        for x, y in zip(bounds, bounds[1:], strict=False):
            if y - x > 1:
                out.setdefault((toks[x + 1][0], toks[y - 1][1]), ("s", "concept"))
    run: list[int] = []
    for k in range(len(toks) + 1):
        word = toks[k][2] if k < len(toks) else "."
        if word.lower() in _STOP or not _HAS_WORD.search(word):
            for s in range(len(run)):
                out.setdefault((toks[run[s]][0], toks[run[-1]][1]), ("k", "concept"))
            run = []
        else:
            run.append(k)
    return out


def span_features(text: str, spans: dict[tuple[int, int], tuple[str, str]],
                  model: Iterable[tuple[int, int]] = (),
                  toks: list[tuple[int, int, str]] | None = None
                  ) -> tuple[list[tuple[int, int]], list[list[str]]]:
    """The spans (in order) and the indicator features of each.

    ``model`` are the span model's ``(start, end)``: a candidate that is one is flagged so
    whatever its source. ``toks`` are the text's words, when already split.

    >>> text = "We use BERT-2 here ."
    >>> keys, rows = span_features(text, {(7, 13): ("m", "method")}, [(7, 13)])
    >>> keys, rows[0][:6]
    ([(7, 13)], ['f=bert-2', 'l=bert-2', 'p=use', 'n=here', 'p2=we_use', 'len=1'])
    """
    return _span_rows(text, spans, model, toks, str)


def _span_rows(text: str, spans: dict[tuple[int, int], tuple[str, str]],
               model: Iterable[tuple[int, int]], toks: list[tuple[int, int, str]] | None,
               code: Callable[[str], _T]) -> tuple[list[tuple[int, int]], list[list[_T]]]:
    """:func:`span_features` with each feature passed through ``code`` (a feature's row in
    the weights, at run time); the per-word features are coded once per word."""
    if toks is None:
        toks = _tokens(text)
    starts = [a for a, _, _ in toks]
    ends = [b for _, b, _ in toks]
    lower = [w.lower() for _, _, w in toks]
    before = ["<s>", "<s>", *lower]  # before[k + 1]: the word before word k
    after = [*lower[1:], "</s>"]
    first: dict[int, tuple[_T, ...]] = {}  # features of word k as a span's first word
    last: dict[int, tuple[_T, ...]] = {}  # ... as its last word
    length = [code(f"len={k}") for k in range(7)]
    flagged = set(model)
    by_source: dict[tuple[str, str, bool], list[_T]] = {}
    keys, rows = [], []
    for (a, b), (src, kind) in sorted(spans.items()):
        i, j = bisect.bisect_left(starts, a), bisect.bisect_right(ends, b)
        if i >= j:
            continue
        flag = (a, b) in flagged
        tail = by_source.get((src, kind, flag))
        if tail is None:
            sources = sorted({src, "m"} if flag else {src})
            tail = by_source[(src, kind, flag)] = [
                *(code(f"src={s}") for s in sources), code(f"srcs={'|'.join(sources)}"),
                *([code(f"src=t={kind}")] if src == "m" else [])]
        if i not in first:
            w, p, p2 = lower[i], before[i + 1], before[i]
            first[i] = (code(f"f={w}"), code(f"p={p}"), code(f"p2={p2}_{p}"),
                        code(f"fs={_shape(toks[i][2])}"), code(f"pf={p}|{w}"))
        if j - 1 not in last:
            w, x = lower[j - 1], after[j - 1]
            last[j - 1] = (code(f"l={w}"), code(f"n={x}"), code(f"ls={_shape(toks[j - 1][2])}"),
                           code(f"suf={w[-3:]}"), code(f"ln={w}|{x}"))
        f0, p, p2, fs, pf = first[i]
        l0, x, ls, suf, ln = last[j - 1]
        keys.append((a, b))
        rows.append([f0, l0, p, x, p2, length[min(j - i, 6)], fs, ls, suf, pf, ln,
                     code(f"fl={lower[i]}|{lower[j - 1]}"),
                     *(code(f"w={w}") for w in lower[i + 1:j - 1]), *tail])
    return keys, rows


def select(keys: Sequence[tuple[int, int]], probs: np.ndarray, threshold: float
           ) -> list[Candidate]:
    """The most likely non-overlapping spans whose probability of being an argument is at
    least ``threshold``, typed by their likeliest type, in text order.

    >>> p = np.array([[0.2, 0, 0.8, 0, 0, 0, 0], [0.4, 0, 0, 0.6, 0, 0, 0],
    ...               [0.9, 0, 0, 0.1, 0, 0, 0]])
    >>> select([(0, 5), (3, 9), (10, 12)], p, 0.5)
    [Candidate(start=0, end=5, type='method')]
    """
    likely = 1.0 - probs[:, 0]
    kinds = probs[:, 1:].argmax(axis=1) + 1
    order = sorted(range(len(keys)), key=lambda k: (-likely[k], keys[k]))
    kept: list[Candidate] = []
    taken: list[tuple[int, int]] = []
    for k in order:
        if likely[k] < threshold:
            break
        a, b = keys[k]
        i = bisect.bisect_left(taken, (a, b))
        if (i > 0 and taken[i - 1][1] > a) or (i < len(taken) and taken[i][0] < b):
            continue
        taken.insert(i, (a, b))
        kept.append(Candidate(a, b, ARGUMENT_TYPES[int(kinds[k])]))  # type: ignore[arg-type]
    return sorted(kept)


class ArgumentModel(SparseLinear):
    """Trained span-classifier weights: one row of class scores per known feature.

    Parameters
    ----------
    features : sequence of str
        The known features, in the order of ``weights``' rows.
    weights : numpy.ndarray
        ``(len(features) + 1, len(ARGUMENT_TYPES))``; the last row is the bias.
    threshold : float
        Least probability of being an argument for a candidate to be kept.
    """

    def __init__(self, features: Sequence[str], weights: np.ndarray, threshold: float = 0.2):
        super().__init__(features, weights)
        self.threshold = threshold

    def arguments(self, text: str, model: Iterable[tuple[int, int, str]]) -> list[Candidate]:
        """The relation arguments of ``text`` given the span model's spans ``model``."""
        model = list(model)
        toks = _tokens(text)
        keys, rows = _span_rows(text, candidate_spans(text, model, toks),
                                [(a, b) for a, b, _ in model], toks, self.index.__getitem__)
        if not rows:
            return []
        return select(keys, self.probabilities_of_ids(rows), self.threshold)

    def save(self, folder: Path) -> None:
        """Write ``arguments.json`` and ``arguments.npy`` into ``folder``."""
        folder.mkdir(parents=True, exist_ok=True)
        (folder / "arguments.json").write_text(json.dumps(
            {"classes": list(ARGUMENT_TYPES), "threshold": self.threshold,
             "features": self.features()}, indent=0) + "\n")
        np.save(folder / "arguments.npy", self.saved_weights())

    @classmethod
    def load(cls, folder: Path) -> ArgumentModel | None:
        """Read a model written by :meth:`save`; ``None`` when ``folder`` has none."""
        if not (folder / "arguments.npy").is_file():
            return None
        meta = json.loads((folder / "arguments.json").read_text())
        return cls(meta["features"], np.load(folder / "arguments.npy").astype(np.float32),
                   meta["threshold"])
