"""Sparse linear classifiers: class scores summed from one weight row per feature, softmax.

The relation model (:mod:`extractors.relation_model`) and the argument model
(:mod:`extractors.relation_args`) are both this: a list of known feature strings, a
weight matrix with one row per feature plus a bias row, and a softmax over the classes.
An unknown feature adds nothing (here "unseen"; the last row, ``[1, 0]``, is the bias).

>>> import numpy as np
>>> clf = SparseLinear(["a", "b"], np.array([[2.0, 0.0], [0.0, 2.0], [1.0, 0.0]]))
>>> [[round(float(p), 2) for p in row] for row in clf.probabilities([["a"], ["b", "unseen"]])]
[[0.95, 0.05], [0.27, 0.73]]
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

__all__ = ["FeatureIndex", "SparseLinear"]


class FeatureIndex(dict[str, int]):
    """Feature → weight row; an unknown feature maps to :attr:`unknown` (a row of zeros).

    A ``dict`` subclass so that a known feature costs one C-level lookup; only unknown
    ones reach :meth:`__missing__`.
    """

    unknown = 0

    def __missing__(self, key: str) -> int:
        return self.unknown


class SparseLinear:
    """Trained weights: one row of class scores per known feature, then the bias row.

    Parameters
    ----------
    features : sequence of str
        The known features, in the order of ``weights``' rows.
    weights : numpy.ndarray
        ``(len(features) + 1, n_classes)``; the last row is the bias.
    """

    def __init__(self, features: Sequence[str], weights: np.ndarray):
        self.index = FeatureIndex({f: i for i, f in enumerate(features)})
        self.index.unknown = len(self.index) + 1  # the row of zeros appended below
        weights = np.asarray(weights, dtype=np.float32)
        self.weights = np.vstack([weights, np.zeros((1, weights.shape[1]), np.float32)])

    def features(self) -> list[str]:
        """The known features in row order (what :meth:`__init__` was given)."""
        return sorted(self.index, key=self.index.__getitem__)

    def saved_weights(self) -> np.ndarray:
        """The weights as written to disk: float16, without the row of zeros."""
        return self.weights[:-1].astype(np.float16)

    def probabilities(self, rows: list[list[str]]) -> np.ndarray:
        """Class probabilities of each feature list, one row each."""
        get = self.index.__getitem__
        return self.probabilities_of_ids([[*map(get, row)] for row in rows])

    def probabilities_of_ids(self, rows: list[list[int]]) -> np.ndarray:
        """Class probabilities of each list of weight rows (values of :attr:`index`)."""
        bias = len(self.index)  # the row after the known features
        flat = [i for row in rows for i in (*row, bias)]
        starts = np.cumsum([0] + [len(row) + 1 for row in rows[:-1]])
        scores = np.add.reduceat(self.weights[flat], starts, axis=0)
        scores -= scores.max(axis=1, keepdims=True)
        np.exp(scores, out=scores)
        return scores / scores.sum(axis=1, keepdims=True)
