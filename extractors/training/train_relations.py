"""Reproducible training recipe for the shipped relation model (``extractors/models/relations``).

1. Pair model: every pair of gold entities (Generic included) of one sentence of SciERC
   train is an example: its features (:func:`extractors.relation_model.sentence_pairs`)
   and its class (no relation, or a type and direction). With ``--pair-picks`` the pairs
   of the arguments the argument model picks on train (out of fold, step 4) are examples
   too, labelled by gold (no relation unless both spans are a gold relation's arguments):
   the pair model then sees the arguments it will be given.
2. Argument model (:mod:`extractors.relation_args`): every candidate span of a SciERC
   train abstract (:func:`~extractors.relation_args.candidate_spans` of the span model's
   spans) and every gold entity is an example: its features and its class (no argument,
   or the entity's type). The shipped span model was trained on these abstracts and finds
   96 % of their entities (64 % on dev), so its spans on train are not what it gives on
   unseen text. With ``--spans`` the spans are those of ``jackknife_spans.py``: each
   abstract's from a span model that did not see it. Without, a fixed share of the shipped
   model's spans (``--drop``, by a hash of the document and offsets: no randomness) is
   withheld from the candidates.
3. Each is a multinomial logistic regression with an L2 penalty fitted by L-BFGS (scipy),
   deterministic: no sampling, no shuffling.
4. The two probability thresholds are chosen by ``--folds``-fold cross-validation on
   SciERC train (documents by index), by the ``relscore`` F1 of the relation stage over
   the out-of-fold predictions (gold sentence bounds, pattern layer on); with ``--spans``
   those are the out-of-fold span model's, so the choice is made on text no model saw.
   ``--folds 0`` chooses on SciERC dev instead (the recipe before ``--spans``). With
   ``--per-type`` (the default) the same out-of-fold predictions then choose a pair
   threshold per relation type (coordinate ascent from the best single one, for each
   argument threshold; :func:`per_type_thresholds`), kept when the CV F1 is higher. The
   out-of-fold pairs are scored once per argument threshold (:func:`pair_table`) and each
   pair-threshold setting decided from them (:func:`decide`, checked against
   :func:`~extractors.relations.find_relations` on the first fold).
5. The models fitted on all of train, with those thresholds, are scored on SciERC dev
   (reported, not used for any choice) and written to ``extractors/models/relations/``.

Usage (from the repository root)::

    python extractors/training/jackknife_spans.py    # out-of-fold spans (shipped in jackknife/)
    PYTHONHASHSEED=0 OMP_NUM_THREADS=1 python extractors/training/train_relations.py \
        --spans extractors/training/jackknife                   # choose by CV, install
    # one given setting (no choice to make: no cross-validation, one pair threshold for
    # all types), written elsewhere
    python extractors/training/train_relations.py --spans extractors/training/jackknife \
        --threshold 0.4 --arg-threshold 0.15 --out /tmp/relations
"""

from __future__ import annotations

import argparse
import bisect
import itertools
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
from extractors.relations import Candidate, find_relations, pattern_pairs, sentence_candidates
from extractors.span_model import LABEL_TO_TYPE, predict_spans
from kg.core.model import RELATION_TYPES, SYMMETRIC_RELATION_TYPES

CLASS_INDEX = {c: i for i, c in enumerate(CLASSES)}
#: Spans of a text: ``(start, end, type)``.
Spans = list[tuple[int, int, str]]


def sentences(doc: dict) -> list[tuple[int, int]]:
    """The character bounds of each gold sentence of a SciERC document."""
    _, tok = detokenize(doc)
    out, k = [], 0
    for sent in doc["sentences"]:
        out.append((tok[k][0], tok[k + len(sent) - 1][1]))
        k += len(sent)
    return out


def gold_relations(doc: dict) -> dict[tuple[tuple[int, int], tuple[int, int]], str]:
    """``(head bounds, tail bounds) -> type`` of a SciERC document's relations."""
    _, tok = detokenize(doc)
    return {((tok[s1][0], tok[e1][1]), (tok[s2][0], tok[e2][1])): kind.lower()
            for sent in doc["relations"] for s1, e1, s2, e2, kind in sent}


def pair_examples(doc: dict, cands_by_sentence: list[list[Candidate]]
                  ) -> tuple[list[list[str]], list[int]]:
    """Features and class of every pair of ``cands_by_sentence`` (each sentence's, in text
    order) of one document, labelled by its gold relations."""
    text, _ = detokenize(doc)
    gold = gold_relations(doc)
    rows, labels = [], []
    for (sa, sb), cands in zip(sentences(doc), cands_by_sentence, strict=True):
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


def gold_examples(docs: list[dict]) -> tuple[list[list[str]], list[int]]:
    """Features and class of every pair of gold entities in one sentence."""
    rows: list[list[str]] = []
    labels: list[int] = []
    for d in docs:
        _, tok = detokenize(d)
        by_sentence = [sorted({Candidate(tok[s][0], tok[e][1], LABEL_TO_TYPE.get(t, "concept"))
                               for s, e, t in ents}) for ents in d["ner"]]
        r, y = pair_examples(d, by_sentence)
        rows += r
        labels += y
    return rows, labels


def picked_examples(doc: dict, picks: list[Candidate]) -> tuple[list[list[str]], list[int]]:
    """Features and class of every pair of the arguments ``picks`` (in text order) that the
    argument model chose in one document (step 1 of the module docstring)."""
    starts = [c.start for c in picks]
    by_sentence = [[c for c in picks[bisect.bisect_left(starts, sa):bisect.bisect_left(starts, sb)]
                    if c.end <= sb] for sa, sb in sentences(doc)]
    return pair_examples(doc, by_sentence)


def shipped_spans(docs: list[dict], drop: int) -> dict[str, Spans]:
    """The shipped span model's spans of each document, less those whose hash of document
    and offsets falls below ``drop`` (of 100; step 2 of the module docstring)."""
    found = predict_spans([detokenize(d)[0] for d in docs])
    return {d["doc_key"]: [(a, b, t) for a, b, t in spans
                           if zlib.crc32(f"{d['doc_key']}|{a}|{b}".encode()) % 100 >= drop]
            for d, spans in zip(docs, found, strict=True)}


def read_spans(folder: Path) -> dict[str, Spans]:
    """The out-of-fold spans written by ``jackknife_spans.py`` into ``folder``."""
    out: dict[str, Spans] = {}
    for path in sorted(folder.glob("spans*.jsonl")):
        for r in read_jsonl(path):
            out[r["doc_key"]] = [(a, b, t) for a, b, t in r["spans"]]
    return out


def argument_examples(doc: dict, spans: Spans) -> tuple[list[list[str]], list[int]]:
    """Features and class of every candidate argument span and gold entity of ``doc``,
    ``spans`` its span model's spans."""
    text, tok = detokenize(doc)
    gold = {(tok[s][0], tok[e][1]): ARGUMENT_TYPES.index(LABEL_TO_TYPE[t])
            for sent in doc["ner"] for s, e, t in sent}
    cands = candidate_spans(text, spans)
    for key in gold:
        cands.setdefault(key, ("k", "concept"))
    keys, features = span_features(text, cands, [(a, b) for a, b, _ in spans])
    return features, [gold.get(k, 0) for k in keys]


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


def joined(parts: list[tuple[list[list[str]], list[int]]], keep: list[bool]
           ) -> tuple[list[list[str]], list[int]]:
    """The examples of the documents whose ``keep`` is true, in document order."""
    rows = [r for (rs, _), k in zip(parts, keep, strict=True) if k for r in rs]
    labels = [y for (_, ys), k in zip(parts, keep, strict=True) if k for y in ys]
    return rows, labels


def fit_arguments(arg_parts: list, keep: list[bool], args: argparse.Namespace
                  ) -> ArgumentModel:
    """The argument model fitted on the documents whose ``keep`` is true."""
    return ArgumentModel(*fit_weights(*joined(arg_parts, keep), len(ARGUMENT_TYPES),
                                      args.arg_l2))


def fit_pairs(pair_parts: list, keep: list[bool], args: argparse.Namespace, docs: list[dict],
              spans: dict[str, Spans], picks_from: list[ArgumentModel] | None
              ) -> RelationModel:
    """The pair model fitted on the documents whose ``keep`` is true; ``picks_from[i]`` the
    argument model whose picks on document ``i`` are pair examples too (``--pair-picks``)."""
    parts = list(pair_parts)
    if picks_from is not None:
        for i, d in enumerate(docs):
            if keep[i]:
                m = picks_from[i]
                m.threshold = args.pick_threshold
                picked = picked_examples(d, m.arguments(detokenize(d)[0], spans[d["doc_key"]]))
                parts[i] = (parts[i][0] + picked[0], parts[i][1] + picked[1])
    return RelationModel(*fit_weights(*joined(parts, keep), len(CLASSES), args.l2))


def relation_records(model: RelationModel, docs: list[dict], spans: dict[str, Spans]
                     ) -> dict[str, dict]:
    """``kg extract``-like records of the relation stage alone on ``docs`` (gold sentence
    bounds, ``spans`` as the span model's)."""
    out = {}
    for d in docs:
        text, _ = detokenize(d)
        found = find_relations(d["doc_key"], "abstract", text, sentences(d), spans[d["doc_key"]],
                               model=model, patterns=True)
        out[d["doc_key"]] = {"relations": [
            {"type": r.type, "head": {"start": r.head_start, "end": r.head_end},
             "tail": {"start": r.tail_start, "end": r.tail_end}} for r in found]}
    return out


#: One pair that the relation stage reads: its two arguments (in text order), the pair
#: model's best class and probability (``None`` when the pair model does not read the pair)
#: and the pattern layer's ``(type, reversed)`` (``None`` when no pattern matches).
Row = tuple[Candidate, Candidate, "tuple[str, bool, float] | None", "tuple[str, bool] | None"]


def pair_table(model: RelationModel, docs: list[dict], spans: dict[str, Spans]
               ) -> dict[str, list[Row]]:
    """Per document, every pair the relation stage (gold sentence bounds, ``spans`` as the
    span model's, the pattern layer on) reads, with what the pair model and the pattern
    layer say of it, whatever the pair thresholds: :func:`decide` applies them."""
    saved = model.threshold, model.thresholds
    model.threshold, model.thresholds = 0.0, {}
    out: dict[str, list[Row]] = {}
    try:
        for d in docs:
            text, _ = detokenize(d)
            cands = model.arguments.arguments(text, spans[d["doc_key"]])  # type: ignore[union-attr]
            sents = sentence_candidates(cands, sentences(d))
            predicted = model.predict(text, sents) if sents else []
            rows: list[Row] = []
            for s, (sa, _, inside) in enumerate(sents):
                hits = pattern_pairs(text, sa, inside)
                for (i, j), (kind, rev, p, _) in predicted[s].items():
                    rows.append((inside[i], inside[j], (kind, rev, p), hits.pop((i, j), None)))
                rows += [(inside[i], inside[j], None, hit) for (i, j), hit in hits.items()]
            out[d["doc_key"]] = rows
    finally:
        model.threshold, model.thresholds = saved
    return out


def _same(a: dict[str, dict], b: dict[str, dict]) -> bool:
    def norm(recs: dict[str, dict]) -> dict[str, list[str]]:
        return {k: sorted(json.dumps(r, sort_keys=True) for r in v["relations"])
                for k, v in recs.items()}
    return norm(a) == norm(b)


def decide(table: dict[str, list[Row]], threshold: float, thresholds: dict[str, float]
           ) -> dict[str, dict]:
    """``kg extract``-like records of the pairs of :func:`pair_table` with these pair
    thresholds (as :meth:`RelationModel.predict` and :func:`find_relations` decide: the pair
    model's class when at least its type's threshold likely, else the pattern layer's)."""
    out = {}
    for key, rows in table.items():
        found = []
        for first, second, best, hit in rows:
            said = hit
            if best is not None and best[2] >= thresholds.get(best[0], threshold):
                said = best[:2]
            if said is not None:
                head, tail = (second, first) if said[1] else (first, second)
                found.append({"type": said[0], "head": {"start": head.start, "end": head.end},
                              "tail": {"start": tail.start, "end": tail.end}})
        out[key] = {"relations": found}
    return out


def per_type_thresholds(docs: list[dict], table: dict[str, list[Row]], threshold: float,
                        values: list[float]) -> tuple[dict[str, float], dict]:
    """Per relation type, the pair threshold among ``values`` (the others' held), by
    coordinate ascent on the ``relscore`` F1 of ``table`` from ``threshold`` for all: two
    passes over the types in :data:`RELATION_TYPES` order, a change kept only when it raises
    F1. Returns the thresholds and their scores."""
    chosen = {t: threshold for t in RELATION_TYPES}
    best = scores(score_relations(docs, decide(table, threshold, chosen)))
    for _ in range(2):
        for kind in RELATION_TYPES:
            for v in values:
                trial = {**chosen, kind: v}
                s = scores(score_relations(docs, decide(table, threshold, trial)))
                if s["f1"] > best["f1"]:
                    chosen, best = trial, s
    return chosen, best


def cross_validate(docs: list[dict], spans: dict[str, Spans], args: argparse.Namespace,
                   pair_parts: list, arg_models: list[ArgumentModel]
                   ) -> dict[tuple[float, float], dict]:
    """Out-of-fold ``relscore`` on ``docs`` of each (pair, argument) threshold setting and,
    with ``args.per_type``, of per-type pair thresholds for each argument threshold (key
    ``(None, argument threshold)``, the thresholds in the score's ``"thresholds"``);
    ``arg_models[k]`` is the argument model fitted without fold ``k``."""
    fold = [i % args.folds for i in range(len(docs))]
    picks_from = [arg_models[f] for f in fold] if args.pair_picks else None
    tables: dict[float, dict[str, list[Row]]] = {}
    for k in range(args.folds):
        model = fit_pairs(pair_parts, [f != k for f in fold], args, docs, spans, picks_from)
        model.arguments = arg_models[k]
        held = [d for d, f in zip(docs, fold, strict=True) if f == k]
        for arg_th in args.arg_threshold:
            arg_models[k].threshold = arg_th
            tables.setdefault(arg_th, {}).update(pair_table(model, held, spans))
        if k == 0:  # the tables decide as the relation stage does
            model.threshold = args.threshold[0]
            check = decide(tables[arg_models[k].threshold], model.threshold, {})
            assert _same(check, relation_records(model, held, spans)), "pair_table disagrees"
        print(f"fold {k + 1} of {args.folds} done", flush=True)
    out: dict[tuple[float | None, float], dict] = {}
    for arg_th, table in tables.items():
        for th in args.threshold:
            out[(th, arg_th)] = scores(score_relations(docs, decide(table, th, {})))
        if args.per_type:
            start = max(args.threshold, key=lambda th: (out[(th, arg_th)]["f1"], th))
            chosen, s = per_type_thresholds(docs, table, start, args.type_thresholds)
            out[(None, arg_th)] = {**s, "threshold": start, "thresholds": chosen}
    return out  # type: ignore[return-value]


def scores(s) -> dict:
    """P, R, F1 and the number predicted of a :class:`RelationScores`."""
    return {"p": round(s.overall.precision, 3), "r": round(s.overall.recall, 3),
            "f1": round(s.overall.f1, 4), "predicted": s.overall.tp + s.overall.fp}


def dev_scores(gold: list[dict], model: RelationModel | None, patterns: bool,
               cache: dict, by_type: bool = False) -> dict:
    """``relscore`` of the whole pipeline on ``gold`` with ``model`` and the pattern layer."""
    graph = extract_corpus(scierc_papers(gold), cache=cache, relation_model=model or False,
                           relation_patterns=patterns)
    s = score_relations(gold, predictions(graph))
    out = scores(s)
    if by_type:
        out["types"] = {k: [round(v.precision, 3), round(v.recall, 3), round(v.f1, 3),
                            v.tp + v.fn] for k, v in s.by_type.items()}
    return out


def main() -> None:
    """Command-line entry point."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--scierc", type=Path, default=Path("/work/shared/data/scierc"))
    ap.add_argument("--spans", type=Path, default=None,
                    help="out-of-fold span-model spans of train (jackknife_spans.py's --out)")
    ap.add_argument("--l2", type=float, default=2.0, help="L2 of the pair model")
    ap.add_argument("--arg-l2", type=float, default=1.0, help="L2 of the argument model")
    ap.add_argument("--drop", type=int, default=35,
                    help="without --spans: per cent of the shipped span model's train spans "
                         "withheld (step 2)")
    ap.add_argument("--pair-picks", action="store_true",
                    help="pair examples also from the picked arguments on train (step 1)")
    ap.add_argument("--pick-threshold", type=float, default=0.3,
                    help="argument threshold of those picks")
    ap.add_argument("--folds", type=int, default=3,
                    help="cross-validation folds of train for the thresholds (0: dev); "
                         "one threshold of each kind given: none")
    ap.add_argument("--threshold", type=float, nargs="*", default=[0.15, 0.2, 0.3, 0.4, 0.5])
    ap.add_argument("--arg-threshold", type=float, nargs="*",
                    default=[0.1, 0.15, 0.2, 0.3, 0.4, 0.5])
    ap.add_argument("--per-type", action=argparse.BooleanOptionalAction, default=True,
                    help="also choose a pair threshold per relation type by the CV")
    ap.add_argument("--type-thresholds", type=float, nargs="*",
                    default=[0.1, 0.15, 0.2, 0.25, 0.3, 0.35, 0.4, 0.5, 0.6],
                    help="the values a type's pair threshold is chosen among")
    ap.add_argument("--out", type=Path, default=MODEL_DIR, help="where to write the model")
    ap.add_argument("--no-install", action="store_true", help="write no model")
    args = ap.parse_args()
    train = read_jsonl(args.scierc / "train.jsonl")
    dev = read_jsonl(args.scierc / "dev.jsonl")
    t0 = time.time()
    spans = read_spans(args.spans) if args.spans else shipped_spans(train, args.drop)
    missing = [d["doc_key"] for d in train if d["doc_key"] not in spans]
    if missing:
        raise SystemExit(f"no spans for {len(missing)} train documents, e.g. {missing[0]}")
    arg_parts = [argument_examples(d, spans[d["doc_key"]]) for d in train]
    pair_parts = [gold_examples([d]) for d in train]
    print(f"argument spans {sum(len(y) for _, y in arg_parts)}, gold pairs "
          f"{sum(len(y) for _, y in pair_parts)}", flush=True)
    grid: dict[tuple[float | None, float], dict] = {}
    cache: dict = {}
    if len(args.threshold) == 1 and len(args.arg_threshold) == 1:
        args.folds = -1  # nothing to choose
        grid[(args.threshold[0], args.arg_threshold[0])] = {"f1": 0.0}
    folds = max(args.folds, 2)
    fold = [i % folds for i in range(len(train))]
    arg_models = [fit_arguments(arg_parts, [f != k for f in fold], args) for k in range(folds)] \
        if args.folds > 1 or args.pair_picks else []
    if args.folds > 1:
        grid = cross_validate(train, spans, args, pair_parts, arg_models)
        for (th, arg_th), s in sorted(grid.items(), key=lambda kv: (
                kv[0][0] is None, kv[0][0] or 0.0, kv[0][1])):
            print(json.dumps({"threshold": th, "arg_threshold": arg_th, "cv": s}), flush=True)
    everything = [True] * len(train)
    model = fit_pairs(pair_parts, everything, args, train, spans,
                      [arg_models[f] for f in fold] if args.pair_picks else None)
    arguments = model.arguments = fit_arguments(arg_parts, everything, args)
    print(f"models fitted on all of train: {len(arguments.index)} argument features, "
          f"{len(model.index)} pair features, {time.time() - t0:.0f} s", flush=True)
    if 0 <= args.folds <= 1:  # the recipe before --spans: thresholds chosen on dev
        for th, arg_th in itertools.product(args.threshold, args.arg_threshold):
            model.threshold, arguments.threshold = th, arg_th
            grid[(th, arg_th)] = dev_scores(dev, model, True, cache)
            print(json.dumps({"threshold": th, "arg_threshold": arg_th, "dev": grid[(th, arg_th)]}),
                  flush=True)
    (th, arg_th), best = max(grid.items(), key=lambda kv: (
        kv[1]["f1"], kv[0][0] is None, kv[0][0] or 0.0, kv[0][1]))
    model.threshold = best["threshold"] if th is None else th
    model.thresholds = best.get("thresholds", {})
    arguments.threshold = arg_th
    how = "given" if args.folds < 0 else "cross-validated on train" if args.folds > 1 \
        else "on dev"
    print(f"chosen: threshold {model.threshold}, per type {model.thresholds}, "
          f"arg_threshold {arg_th} ({how}: {best})")
    print("dev", json.dumps(dev_scores(dev, model, True, cache, by_type=True)), flush=True)
    print("dev, pattern layer off", dev_scores(dev, model, False, cache), flush=True)
    print(f"{time.time() - t0:.0f} s in all")
    if not args.no_install:
        model.save(args.out)
        print("installed", args.out)


if __name__ == "__main__":
    main()
