"""Reproducible training recipe for the shipped relation model (``extractors/models/relations``).

1. Pair model: every pair of gold entities (Generic included) of one sentence of SciERC
   train is an example: its features (:func:`extractors.relation_model.sentence_pairs`)
   and its class (no relation, or a type and direction).
2. Argument model (:mod:`extractors.relation_args`): every candidate span of a SciERC
   train abstract (:func:`~extractors.relation_args.candidate_spans` of the span model's
   spans) and every gold entity is an example: its features and its class (no argument,
   or the entity's type). The span model was trained on these abstracts and finds 96 % of
   their entities (64 % on dev), so a fixed share of its spans (``--drop``, by a hash of
   the document and offsets: no randomness) is withheld from the candidates; the argument
   model then learns that the other sources are right too.
3. Each is a multinomial logistic regression with an L2 penalty fitted by L-BFGS (scipy),
   deterministic: no sampling, no shuffling.
4. The two probability thresholds are chosen on SciERC dev, by the ``relscore`` F1 of the
   whole pipeline (pattern layer on), i.e. the figures reported for dev are tuned on it
   (a held-out part of train cannot choose them: the span model has seen it).
5. The best model is written to ``extractors/models/relations/``.

Usage (from the repository root)::

    python extractors/training/train_relations.py            # grid, install the best
    python extractors/training/train_relations.py --threshold 0.2 --arg-threshold 0.2
"""

from __future__ import annotations

import argparse
import json
import time
import zlib
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
from extractors.relation_args import (
    ARGUMENT_TYPES,
    ArgumentModel,
    candidate_spans,
    span_features,
)
from extractors.relation_model import (
    CLASSES,
    MODEL_DIR,
    RelationModel,
    sentence_pairs,
)
from extractors.relations import Candidate
from extractors.span_model import LABEL_TO_TYPE, predict_spans
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


def argument_examples(docs: list[dict], drop: int) -> tuple[list[list[str]], list[int]]:
    """Features and class of every candidate argument span and gold entity of ``docs``.

    The span model's spans whose hash of document and offsets falls below ``drop`` (of
    100) are left out (step 2 of the module docstring)."""
    texts = [detokenize(d) for d in docs]
    rows, labels = [], []
    found = predict_spans([text for text, _ in texts])
    for d, (text, tok), spans in zip(docs, texts, found, strict=True):
        kept = [(a, b, t) for a, b, t in spans
                if zlib.crc32(f"{d['doc_key']}|{a}|{b}".encode()) % 100 >= drop]
        gold = {(tok[s][0], tok[e][1]): ARGUMENT_TYPES.index(LABEL_TO_TYPE[t])
                for sent in d["ner"] for s, e, t in sent}
        cands = candidate_spans(text, kept)
        for key in gold:
            cands.setdefault(key, ("k", "concept"))
        keys, features = span_features(text, cands, [(a, b) for a, b, _ in kept])
        rows += features
        labels += [gold.get(k, 0) for k in keys]
    return rows, labels


def fit_weights(rows: list[list[str]], labels: list[int], classes: int, l2: float,
                min_count: int = 2, maxiter: int = 400) -> tuple[list[str], np.ndarray]:
    """Multinomial logistic regression over the features seen ``min_count`` times or more:
    the features and the ``(len(features) + 1, classes)`` weights (last row the bias)."""
    counts = Counter(f for row in rows for f in set(row))
    features = sorted(f for f, n in counts.items() if n >= min_count)
    index = {f: i for i, f in enumerate(features)}
    bias = len(features)
    cols = [sorted({index[f] for f in row if f in index}) + [bias] for row in rows]
    indptr = np.cumsum([0] + [len(c) for c in cols])
    x = sparse.csr_matrix((np.ones(indptr[-1]), np.concatenate(cols), indptr),
                          shape=(len(rows), bias + 1))
    y = np.asarray(labels)
    n, k = len(rows), classes
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
    return features, res.x.reshape(bias + 1, k)


def fit(rows: list[list[str]], labels: list[int], l2: float) -> RelationModel:
    """The pair model fitted on ``rows`` (:func:`fit_weights`)."""
    return RelationModel(*fit_weights(rows, labels, len(CLASSES), l2))


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
    ap.add_argument("--l2", type=float, default=2.0, help="L2 of the pair model")
    ap.add_argument("--arg-l2", type=float, default=1.0, help="L2 of the argument model")
    ap.add_argument("--drop", type=int, default=35,
                    help="per cent of the span model's train spans withheld (step 2)")
    ap.add_argument("--threshold", type=float, nargs="*", default=[0.15, 0.2, 0.3])
    ap.add_argument("--arg-threshold", type=float, nargs="*", default=[0.2, 0.3, 0.4])
    ap.add_argument("--out", type=Path, default=MODEL_DIR, help="where to write the model")
    ap.add_argument("--no-install", action="store_true", help="write no model")
    args = ap.parse_args()
    train = read_jsonl(args.scierc / "train.jsonl")
    dev = read_jsonl(args.scierc / "dev.jsonl")
    t0 = time.time()
    rows, labels = gold_examples(train)
    print(f"train pairs {len(rows)}, classes {dict(sorted(Counter(labels).items()))}",
          flush=True)
    model = fit(rows, labels, args.l2)
    print(f"pair model: {len(model.index)} features, {time.time() - t0:.0f} s", flush=True)
    t1 = time.time()
    arg_rows, arg_labels = argument_examples(train, args.drop)
    print(f"argument spans {len(arg_rows)}, classes "
          f"{dict(sorted(Counter(arg_labels).items()))}", flush=True)
    arguments = ArgumentModel(*fit_weights(arg_rows, arg_labels, len(ARGUMENT_TYPES),
                                           args.arg_l2))
    print(f"argument model: {len(arguments.index)} features, {time.time() - t1:.0f} s",
          flush=True)
    cache: dict = {}
    print("dev, pattern layer only", dev_scores(dev, None, True, cache), flush=True)
    best: tuple[float, dict] = (-1.0, {})
    for th in args.threshold:
        model.threshold = th
        model.arguments = None
        s = dev_scores(dev, model, True, cache)
        print(json.dumps({"threshold": th, "arguments": "span model + mentions"} | s),
              flush=True)
        model.arguments = arguments
        for arg_th in args.arg_threshold:
            arguments.threshold = arg_th
            s = dev_scores(dev, model, True, cache)
            print(json.dumps({"threshold": th, "arg_threshold": arg_th} | s), flush=True)
            if s["f1"] > best[0]:
                best = (s["f1"], {"threshold": th, "arg_threshold": arg_th})
    f1, params = best
    model.threshold, arguments.threshold = params["threshold"], params["arg_threshold"]
    print("same, pattern layer off", dev_scores(dev, model, False, cache), flush=True)
    print(f"best on dev: {params}, F1 {f1}; {time.time() - t0:.0f} s in all")
    if not args.no_install:
        model.save(args.out)
        print("installed", args.out)


if __name__ == "__main__":
    main()
