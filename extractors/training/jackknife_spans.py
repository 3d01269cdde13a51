"""Out-of-fold span-model predictions on SciERC train, for training the relation models.

The shipped span model was trained on SciERC train and finds 96 % of the relation
arguments there (64 % on dev): its spans on train are not what it gives on unseen text, so
the relation models cannot learn from them how far to trust it. This recipe trains
``--folds`` span models, each on the other folds of train (the shipped recipe's config,
no pretraining, 10 epochs; model selection on SciERC dev as the shipped model's), and
writes each train abstract's spans as the model that did not see it predicts them:
``{"doc_key": ..., "spans": [[start, end, type], ...]}`` lines (character offsets of the
scorer's detokenised text), read by ``train_relations.py --spans``.

Usage (from the repository root; about 25 min on a loaded 2-core machine, the folds in parallel)::

    python extractors/training/jackknife_spans.py

The spans of the shipped relation model are in ``extractors/training/jackknife/`` (3 folds,
10 epochs: each fold model reached a dev ``ents_f`` of about 0.43 with Generic, the shipped
span model 0.54; on train they find 56 % of the entities, the shipped model 64 % of the dev
relation arguments).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path

import spacy
from spacy.tokens import DocBin

from extractors.evaluation import detokenize, read_jsonl
from extractors.span_model import predict_spans

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]


def main() -> None:
    """Command-line entry point."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--scierc", type=Path, default=Path("/work/shared/data/scierc"))
    ap.add_argument("--corpus", type=Path, default=HERE / "corpus",
                    help="prepare_scierc.py's output (train.spacy, dev.spacy)")
    ap.add_argument("--out", type=Path, default=HERE / "runs" / "jackknife",
                    help="where the fold models are trained")
    ap.add_argument("--spans-out", type=Path, default=HERE / "jackknife",
                    help="where the spans are written (spansK.jsonl per fold)")
    ap.add_argument("--folds", type=int, default=3)
    ap.add_argument("--epochs", type=int, default=10)
    ap.add_argument("--only", type=int, nargs="*", default=None, help="folds to run")
    ap.add_argument("--predict-only", action="store_true",
                    help="no training: predict with each fold's model-best as it stands")
    args = ap.parse_args()
    py = sys.executable
    env = dict(os.environ, OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1",
               MKL_NUM_THREADS="1", PYTHONHASHSEED="0")
    if not (args.corpus / "train.spacy").is_file():
        subprocess.run([py, str(HERE / "prepare_scierc.py"), "--scierc", str(args.scierc),
                        "--out", str(args.corpus)], check=True, cwd=ROOT, env=env)
    nlp = spacy.blank("en")
    train_docs = list(DocBin().from_disk(args.corpus / "train.spacy").get_docs(nlp.vocab))
    gold = read_jsonl(args.scierc / "train.jsonl")
    assert len(gold) == len(train_docs)
    args.out.mkdir(parents=True, exist_ok=True)
    args.spans_out.mkdir(parents=True, exist_ok=True)
    for fold in args.only if args.only is not None else range(args.folds):
        done = args.spans_out / f"spans{fold}.jsonl"
        if done.is_file():
            continue
        rest = DocBin(store_user_data=False)
        for i, doc in enumerate(train_docs):
            if i % args.folds != fold:
                rest.add(doc)
        part = args.out / f"train{fold}.spacy"
        rest.to_disk(part)
        run = args.out / f"fold{fold}"
        if not args.predict_only:
            subprocess.run([py, "-m", "spacy", "train", str(HERE / "config.cfg"), "--output",
                            str(run), "--paths.train", str(part), "--paths.dev",
                            str(args.corpus / "dev.spacy"), "--paths.raw_text", "null",
                            "--training.max_epochs", str(args.epochs),
                            "--training.eval_frequency", "200"],
                           check=True, cwd=ROOT, env=env)
        model = spacy.load(run / "model-best")
        held = [d for i, d in enumerate(gold) if i % args.folds == fold]
        found = predict_spans([detokenize(d)[0] for d in held], nlp=model)
        with open(done.with_suffix(".tmp"), "w", encoding="utf-8") as f:
            for d, spans in zip(held, found, strict=True):
                f.write(json.dumps({"doc_key": d["doc_key"],
                                    "spans": [list(s) for s in spans]}) + "\n")
        done.with_suffix(".tmp").rename(done)
        print("fold", fold, "written", done, flush=True)


if __name__ == "__main__":
    main()
