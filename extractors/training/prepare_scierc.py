"""Convert SciERC jsonl to spaCy ``DocBin`` files for training the span model.

The text of every abstract is rebuilt from the SciERC tokens with exactly the
detokenisation of the official scorer (``score_extract.detok``), so the
character offsets seen in training are the ones the scorer uses.  The text is
then tokenised by the spaCy tokenizer that ships with the model (a blank
English tokenizer) and the gold character spans are aligned onto it.

Usage::

    python extractors/training/prepare_scierc.py \
        --scierc /work/shared/data/scierc --out extractors/training/corpus \
        [--unlabeled /work/shared/data/neurips2018.jsonl ...]

Writes ``train.spacy``, ``dev.spacy`` and, when ``--unlabeled`` is given,
``pretrain.jsonl`` (``{"text": ...}`` lines for ``spacy pretrain``).
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Iterable
from pathlib import Path

import spacy
from spacy.tokens import DocBin, Span
from spacy.util import filter_spans

from extractors.evaluation import detokenize

# One copy of the scorer's detokenisation serves training and ``kg eval``.
detok = detokenize


def read_jsonl(path: Path) -> list[dict]:
    """Read a jsonl file into a list of dicts."""
    with open(path, encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


def convert(nlp: spacy.Language, docs: Iterable[dict], stats: dict[str, int]) -> DocBin:
    """Convert SciERC docs to a ``DocBin`` with ``doc.ents`` set.

    Overlapping (nested) gold spans are resolved with ``filter_spans`` (longest
    wins) because the ``ner`` component predicts a flat segmentation.
    """
    db = DocBin(store_user_data=False)
    for d in docs:
        text, tok_spans = detok(d)
        doc = nlp.make_doc(text)
        spans = []
        for sent in d["ner"]:
            for s, e, label in sent:
                stats["gold"] += 1
                a, b = tok_spans[s][0], tok_spans[e][1]
                span = doc.char_span(a, b, label=label, alignment_mode="strict")
                if span is None:
                    stats["misaligned_strict"] += 1
                    span = doc.char_span(a, b, label=label, alignment_mode="expand")
                    if span is None:
                        stats["lost"] += 1
                        continue
                spans.append(span)
        kept = filter_spans(spans)
        stats["dropped_overlap"] += len(spans) - len(kept)
        doc.ents = [Span(doc, s.start, s.end, label=s.label_) for s in kept]
        db.add(doc)
    return db


def main() -> None:
    """Command-line entry point."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--scierc", type=Path, default=Path("/work/shared/data/scierc"))
    ap.add_argument("--out", type=Path, default=Path(__file__).parent / "corpus")
    ap.add_argument("--unlabeled", type=Path, nargs="*", default=[])
    args = ap.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    nlp = spacy.blank("en")
    for split in ("train", "dev"):
        stats = {"gold": 0, "misaligned_strict": 0, "lost": 0, "dropped_overlap": 0}
        db = convert(nlp, read_jsonl(args.scierc / f"{split}.jsonl"), stats)
        db.to_disk(args.out / f"{split}.spacy")
        print(split, len(db), "docs", json.dumps(stats))
    if args.unlabeled:
        n = 0
        with open(args.out / "pretrain.jsonl", "w", encoding="utf-8") as f:
            for d in read_jsonl(args.scierc / "train.jsonl"):
                f.write(json.dumps({"text": detok(d)[0]}) + "\n")
                n += 1
            for p in args.unlabeled:
                for d in read_jsonl(p):
                    for field in ("title", "abstract"):
                        if d.get(field):
                            f.write(json.dumps({"text": d[field]}) + "\n")
                            n += 1
        print("pretrain texts", n)


if __name__ == "__main__":
    main()
