"""The statistical relation model: a linear classifier over pairs of spans of one sentence.

Each pair of candidate spans (``first`` before ``second`` in the text) is described by
sparse indicator features — the spans' types, their words and last words, the words
between them (each, as bigrams, and the whole stretch when short), the words around
them, how far apart they are and how many candidates lie between — and scored by
one weight vector per class: "no relation", each directed type in each direction
(``used-for`` first→second or second→first, ...) and the two undirected types.
The weights are trained on SciERC by ``extractors/training/train_relations.py``
(multinomial logistic regression, see ``bench/train_notes.md``) and shipped in
``extractors/models/relations/``.

Examples
--------
>>> from extractors.relations import Candidate
>>> text = "We apply a CRF model to named entity recognition ."
>>> pairs, rows = sentence_pairs(text, 0, len(text), [Candidate(11, 20, "method"),
...                                                   Candidate(24, 48, "task")])
>>> pairs, sorted(rows[0])[:4]
([(0, 1)], ['b1=to', 'ba=to', 'bb=<s>_to', 'bb=to_</s>'])
"""

from __future__ import annotations

import bisect
import functools
import json
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from extractors.linear import SparseLinear
from extractors.relation_args import ArgumentModel
from extractors.relations import WORD, Candidate
from kg.core.model import RELATION_TYPES, SYMMETRIC_RELATION_TYPES

__all__ = [
    "CLASSES",
    "MAX_INSIDE",
    "MODEL_DIR",
    "RelationModel",
    "load_relation_model",
    "sentence_pairs",
]

#: Directory of the shipped relation model (``features.json`` + ``weights.npy``).
MODEL_DIR: Path = Path(__file__).resolve().parent / "models" / "relations"
#: Classes of a pair: ``(type, reversed)``; index 0 is "no relation".
CLASSES: tuple[tuple[str, bool] | None, ...] = (None, *(
    (t, rev) for t in RELATION_TYPES for rev in (False, True)
    if not (rev and t in SYMMETRIC_RELATION_TYPES)))
_MAX_BETWEEN = 4  # the whole stretch between two spans is a feature up to this many words
#: Most candidates between the two spans of a pair: 99 % of SciERC train relations have
#: at most 3, and long sentences would otherwise give quadratically many pairs.
MAX_INSIDE = 3


def _bucket(n: int) -> str:
    return str(n) if n < 4 else "4-6" if n < 7 else "7-10" if n < 11 else "11+"


def sentence_pairs(text: str, sent_start: int, sent_end: int, inside: list[Candidate]
                   ) -> tuple[list[tuple[int, int]], list[list[str]]]:
    """The pairs ``(i, j)`` (``i < j``, at most :data:`MAX_INSIDE` candidates between them,
    not overlapping) of the sentence's candidates ``inside`` (in text order), and the
    indicator features of each.

    The sentence is split into words once (:func:`extractors.relations.words`' pattern);
    a span's words are those inside it.
    """
    found = [(m.start(), m.end(), m.group().lower())
             for m in WORD.finditer(text, sent_start, sent_end)]
    starts = [a for a, _, _ in found]
    ends = [b for _, b, _ in found]
    lower = [w for _, _, w in found]

    def span(c: Candidate) -> tuple[int, int]:
        return bisect.bisect_left(starts, c.start), bisect.bisect_right(ends, c.end)

    bounds = [span(c) for c in inside]
    roles = []
    for c, (x, y) in zip(inside, bounds, strict=True):
        w = lower[x:y] or [""]
        roles.append((
            [f"ta={c.type}", f"ha={w[-1]}", f"fa={w[0]}", *(f"wa={v}" for v in w[:-1])],
            [f"tb={c.type}", f"hb={w[-1]}", f"fb={w[0]}", *(f"wb={v}" for v in w[:-1])],
            w[-1]))
    pairs, rows = [], []
    for i, first in enumerate(inside):
        for j in range(i + 1, min(len(inside), i + MAX_INSIDE + 2)):
            second = inside[j]
            if first.end > second.start:
                continue
            x, y = bounds[i][1], bounds[j][0]
            between = lower[x:y] if x < y else []
            before = lower[max(0, bounds[i][0] - 2):bounds[i][0]]
            after = lower[bounds[j][1]:bounds[j][1] + 2]
            ta, tb = first.type, second.type
            f = [*roles[i][0], *roles[j][1], f"tt={ta}|{tb}", f"n={_bucket(len(between))}",
                 f"c={min(j - i - 1, 3)}", f"pa={before[-1] if before else '<s>'}",
                 f"nb={after[0] if after else '</s>'}", f"pa2={'_'.join(before)}",
                 f"nb2={'_'.join(after)}", f"hab={roles[i][2]}|{roles[j][2]}"]
            if len(between) <= _MAX_BETWEEN:
                stretch = "_".join(between)
                f += [f"bs={stretch}", f"tbs={ta}|{tb}|{stretch}"]
                if j == i + 1:
                    f.append(f"bs0={stretch}")
            if between:
                f += [f"b1={between[0]}", f"bl={between[-1]}", f"tb1={ta}|{tb}|{between[0]}"]
                # (sorted, not in a set's order: the order of a row's features is the order
                # its weights are summed in, in float32, and a set's order of strings changes
                # with the process's hash seed, which a separately started worker does not share)
                f += [f"ba={w}" for w in sorted(set(between))]
                bounded = ["<s>", *between, "</s>"]
                bigrams = sorted(set(zip(bounded, bounded[1:], strict=False)))
                f += [f"bb={a}_{b}" for a, b in bigrams]
            else:
                f.append("adjacent")
            pairs.append((i, j))
            rows.append(f)
    return pairs, rows


class RelationModel(SparseLinear):
    """Trained weights: one row of class scores per known feature.

    Parameters
    ----------
    features : sequence of str
        The known features, in the order of ``weights``' rows.
    weights : numpy.ndarray
        ``(len(features) + 1, len(CLASSES))``; the last row is the bias.
    threshold : float
        Least probability of the best relation class for a pair to be reported.
    arguments : ArgumentModel, optional
        The classifier that picks the relation arguments of a text among its own
        candidates (:mod:`extractors.relation_args`); without it, the arguments are the
        span model's spans and the mentions (:func:`extractors.relations.candidates`).
    thresholds : dict of str to float, optional
        Per relation type, the least probability of the best class when it is of that type
        (chosen by cross-validation on SciERC train); :attr:`threshold` for the others.
    """

    def __init__(self, features: Sequence[str], weights: np.ndarray, threshold: float = 0.5,
                 arguments: ArgumentModel | None = None,
                 thresholds: dict[str, float] | None = None):
        super().__init__(features, weights)
        self.arguments = arguments
        self.threshold = threshold
        self.thresholds = dict(thresholds or {})

    def limits(self) -> np.ndarray:
        """The least probability of each class (index 0, "no relation", is never reported).

        >>> m = RelationModel([], np.zeros((1, len(CLASSES))), 0.4, thresholds={"compare": 0.2})
        >>> limits = m.limits()
        >>> float(limits[CLASSES.index(("compare", False))]), float(limits[1])
        (0.2, 0.4)
        """
        return np.array([self.thresholds.get(c[0], self.threshold) if c else 1.0
                         for c in CLASSES], dtype=np.float64)

    def predict(self, text: str, sentences: list[tuple[int, int, list[Candidate]]]
                ) -> list[dict[tuple[int, int], tuple[str, bool, float, str]]]:
        """Relations among the candidates of each sentence ``(start, end, candidates)`` of
        ``text``: for each, ``(i, j) -> (type, reversed, probability, "model")`` for the pairs
        ``candidates[i]``, ``candidates[j]`` (``i < j``) whose best relation class is at least
        likely as its type's threshold (:attr:`thresholds`, else :attr:`threshold`). One
        batch per text: numpy's overhead is per call."""
        found = [sentence_pairs(text, sa, sb, inside) for sa, sb, inside in sentences]
        out: list[dict[tuple[int, int], tuple[str, bool, float, str]]] = [{} for _ in found]
        rows = [row for _, features in found for row in features]
        if not rows:
            return out
        probs = self.probabilities(rows)
        best = probs[:, 1:].argmax(axis=1) + 1
        likely = probs[np.arange(len(rows)), best].tolist()
        limit = self.limits()[best].tolist()
        k = 0
        for s, (pairs, _) in enumerate(found):
            for pair in pairs:
                if likely[k] >= limit[k]:
                    kind, rev = CLASSES[best[k]]  # type: ignore[misc]
                    out[s][pair] = (kind, rev, likely[k], "model")
                k += 1
        return out

    def save(self, folder: Path) -> None:
        """Write ``features.json`` and ``weights.npy`` (and the argument model's files)
        into ``folder``."""
        folder.mkdir(parents=True, exist_ok=True)
        if self.arguments is not None:
            self.arguments.save(folder)
        (folder / "features.json").write_text(json.dumps(
            {"classes": [c and list(c) for c in CLASSES], "threshold": self.threshold,
             **({"thresholds": dict(sorted(self.thresholds.items()))} if self.thresholds
                else {}),
             "features": self.features()}, indent=0) + "\n")
        np.save(folder / "weights.npy", self.saved_weights())

    @classmethod
    def load(cls, folder: Path) -> RelationModel:
        """Read a model written by :meth:`save`."""
        meta = json.loads((folder / "features.json").read_text())
        weights = np.load(folder / "weights.npy").astype(np.float32)
        return cls(meta["features"], weights, meta["threshold"], ArgumentModel.load(folder),
                   meta.get("thresholds"))


@functools.lru_cache(maxsize=1)
def load_relation_model() -> RelationModel | None:
    """The shipped relation model, or ``None`` when its weights are not installed."""
    if not (MODEL_DIR / "weights.npy").is_file():
        return None
    return RelationModel.load(MODEL_DIR)
