"""Reproducible training recipe for the shipped relation model (``extractors/models/relations``).

1. Every pair of gold entities (Generic included) of one sentence of SciERC train is an
   example: its features (:func:`extractors.relation_model.sentence_pairs`) and its class
   (no relation, or a type and direction).
2. A multinomial logistic regression with an L2 penalty is fitted by L-BFGS (scipy),
   deterministic: no sampling, no shuffling.
3. The L2 strength and the probability threshold are chosen on SciERC dev, by the
   ``relscore`` F1 of the whole pipeline (span model candidates, pattern layer on), i.e.
   the figures reported for dev are tuned on it.
4. The best model is written to ``extractors/models/relations/``.

Usage (from the repository root)::

    python extractors/training/train_relations.py            # grid, install the best
    python extractors/training/train_relations.py --l2 0.3 --threshold 0.4
"""

from __future__ import annotations

import argparse
import json
import time
from collections import Counter
from pathlib import Path

import numpy as np
from scipy import sparse
from scipy.optimize import minimize

from extractors.evaluation import (
    detokenize,
    predictions,
    read_jsonl,
    scierc_papers,
    score_relations,
)
from extractors.pipeline import extract_corpus
from extractors.relation_model import (
    CLASSES,
    MODEL_DIR,
    RelationModel,
    sentence_pairs,
)
from extractors.relations import Candidate
from extractors.span_model import LABEL_TO_TYPE
from kg.core.model import SYMMETRIC_RELATION_TYPES

CLASS_INDEX = {c: i for i, c in enumerate(CLASSES)}


def gold_examples(docs: list[dict]) -> tuple[list[list[str]], list[int]]:
    """Features and class of every pair of gold entities in one sentence."""
    rows, labels = [], []
    for d in docs:
        text, tok = detokenize(d)
        first_tok = 0
        for sent, ents, rels in zip(d["sentences"], d["ner"], d["relations"], strict=True):
            sa, sb = tok[first_tok][0], tok[first_tok + len(sent) - 1][1]
            first_tok += len(sent)
            cands = sorted({Candidate(tok[s][0], tok[e][1], LABEL_TO_TYPE.get(t, "concept"))
                            for s, e, t in ents})
            gold = {}
            for s1, e1, s2, e2, kind in rels:
                h, t = (tok[s1][0], tok[e1][1]), (tok[s2][0], tok[e2][1])
                gold[(h, t)] = kind.lower()
            pairs, features = sentence_pairs(text, sa, sb, cands)
            for (i, j), row in zip(pairs, features, strict=True):
                a = (cands[i].start, cands[i].end)
                b = (cands[j].start, cands[j].end)
                if (a, b) in gold:
                    label = (gold[(a, b)], False)
                elif (b, a) in gold:
                    kind = gold[(b, a)]
                    label = (kind, kind not in SYMMETRIC_RELATION_TYPES)
                else:
                    label = None
                rows.append(row)
                labels.append(CLASS_INDEX[label])
    return rows, labels


def fit(rows: list[list[str]], labels: list[int], l2: float, min_count: int = 2,
        maxiter: int = 400) -> RelationModel:
    """Multinomial logistic regression over the features seen ``min_count`` times or more."""
    counts = Counter(f for row in rows for f in set(row))
    features = sorted(f for f, n in counts.items() if n >= min_count)
    index = {f: i for i, f in enumerate(features)}
    bias = len(features)
    cols = [sorted({index[f] for f in row if f in index}) + [bias] for row in rows]
    indptr = np.cumsum([0] + [len(c) for c in cols])
    x = sparse.csr_matrix((np.ones(indptr[-1]), np.concatenate(cols), indptr),
                          shape=(len(rows), bias + 1))
    y = np.asarray(labels)
    n, k = len(rows), len(CLASSES)
    onehot = np.zeros((n, k))
    onehot[np.arange(n), y] = 1.0

    def loss(w: np.ndarray) -> tuple[float, np.ndarray]:
        w = w.reshape(bias + 1, k)
        z = x @ w
        z -= z.max(axis=1, keepdims=True)
        logp = z - np.log(np.exp(z).sum(axis=1, keepdims=True))
        penalty = w[:-1]  # the bias is not penalised
        value = -(onehot * logp).sum() / n + 0.5 * l2 * (penalty ** 2).sum() / n
        grad = x.T @ (np.exp(logp) - onehot) / n
        grad[:-1] += l2 * penalty / n
        return value, grad.ravel()

    res = minimize(loss, np.zeros((bias + 1) * k), jac=True, method="L-BFGS-B",
                   options={"maxiter": maxiter})
    return RelationModel(features, res.x.reshape(bias + 1, k))


def dev_scores(gold: list[dict], model: RelationModel | None, patterns: bool,
               cache: dict) -> dict:
    """``relscore`` of the whole pipeline on ``gold`` with ``model`` and the pattern layer."""
    graph = extract_corpus(scierc_papers(gold), cache=cache, relation_model=model or False,
                           relation_patterns=patterns)
    s = score_relations(gold, predictions(graph))
    return {"p": round(s.overall.precision, 3), "r": round(s.overall.recall, 3),
            "f1": round(s.overall.f1, 4), "predicted": s.overall.tp + s.overall.fp}


def main() -> None:
    """Command-line entry point."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--scierc", type=Path, default=Path("/work/shared/data/scierc"))
    ap.add_argument("--l2", type=float, nargs="*", default=[1.0, 2.0])
    ap.add_argument("--threshold", type=float, nargs="*",
                    default=[0.15, 0.2, 0.25])
    ap.add_argument("--out", type=Path, default=MODEL_DIR, help="where to write the model")
    ap.add_argument("--no-install", action="store_true", help="write no model")
    args = ap.parse_args()
    train = read_jsonl(args.scierc / "train.jsonl")
    dev = read_jsonl(args.scierc / "dev.jsonl")
    t0 = time.time()
    rows, labels = gold_examples(train)
    print(f"train pairs {len(rows)}, classes {dict(sorted(Counter(labels).items()))}",
          flush=True)
    cache: dict = {}
    print("dev, pattern layer only", dev_scores(dev, None, True, cache), flush=True)
    best: tuple[float, RelationModel | None, dict] = (-1.0, None, {})
    for l2 in args.l2:
        t1 = time.time()
        model = fit(rows, labels, l2)
        print(f"l2={l2}: {len(model.index)} features, fitted in {time.time() - t1:.0f} s",
              flush=True)
        for th in args.threshold:
            model.threshold = th
            for patterns in (True, False):
                s = dev_scores(dev, model, patterns, cache)
                print(json.dumps({"l2": l2, "threshold": th, "patterns": patterns} | s),
                      flush=True)
                if patterns and s["f1"] > best[0]:
                    best = (s["f1"], model, {"l2": l2, "threshold": th})
    f1, model, params = best
    print(f"best on dev: {params}, F1 {f1}; {time.time() - t0:.0f} s in all")
    if model is not None and not args.no_install:
        model.threshold = params["threshold"]
        model.save(args.out)
        print("installed", args.out)


if __name__ == "__main__":
    main()
