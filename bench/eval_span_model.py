"""Evaluate the SciERC span model with the official scorer and measure throughput.

Usage::

    python bench/eval_span_model.py [--model DIR] [--shared /work/shared]

1. ``score_extract.py make-input`` on SciERC dev -> detokenised abstracts;
2. ``predict_spans`` -> ``kg extract``-style jsonl (generic mentions kept, the
   scorer ignores them);
3. ``score_extract.py score`` -> typed / untyped P/R/F1 (Generic excluded);
4. abstracts/s of the model alone (single process) on the NeurIPS 2018 abstracts.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from extractors.span_model import load_model, load_span_model, predict_spans  # noqa: E402


def main() -> int:
    """Run the evaluation; return the scorer's exit status."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--model", type=Path, default=None, help="pipeline dir (default: shipped)")
    ap.add_argument("--shared", type=Path, default=Path("/work/shared"))
    ap.add_argument("--threshold", type=float, default=0.55)
    ap.add_argument("--pred-out", type=Path, default=None, help="keep predictions here")
    args = ap.parse_args()

    scorer = args.shared / "eval" / "score_extract.py"
    gold = args.shared / "data" / "scierc" / "dev.jsonl"
    # a candidate model is run as the build runs the shipped one (load_model)
    nlp = load_model(args.model) if args.model else load_span_model()

    with tempfile.TemporaryDirectory() as tmp:
        dev_in = Path(tmp) / "dev_in.jsonl"
        pred = args.pred_out or Path(tmp) / "dev_pred.jsonl"
        subprocess.run(
            [sys.executable, str(scorer), "make-input", str(gold), str(dev_in)], check=True
        )
        rows = [json.loads(line) for line in dev_in.open(encoding="utf-8") if line.strip()]
        texts = [r["abstract"] for r in rows]
        with pred.open("w", encoding="utf-8") as f:
            for row, text, spans in zip(rows, texts, predict_spans(texts, nlp=nlp), strict=True):
                mentions = [
                    {"field": "abstract", "start": s, "end": e, "text": text[s:e], "type": t}
                    for s, e, t in spans
                ]
                f.write(json.dumps({"id": row["id"], "mentions": mentions}) + "\n")
        res = subprocess.run(
            [sys.executable, str(scorer), "score", str(gold), str(pred), str(args.threshold)],
            capture_output=True,
            text=True,
        )
        scores = json.loads(res.stdout.strip().splitlines()[-1])

    neurips = args.shared / "data" / "neurips2018.jsonl"
    abstracts = [
        json.loads(line)["abstract"] for line in neurips.open(encoding="utf-8") if line.strip()
    ]
    list(predict_spans(abstracts[:50], nlp=nlp))  # warm-up
    t0, c0 = time.perf_counter(), time.process_time()
    n_mentions = sum(len(s) for s in predict_spans(abstracts, nlp=nlp))
    dt, dc = time.perf_counter() - t0, time.process_time() - c0

    print(f"dev typed   P/R/F1: {scores['typed']}")
    print(f"dev untyped P/R/F1: {scores['untyped']}")
    print(
        f"throughput: {len(abstracts) / dt:.1f} abstracts/s "
        f"({len(abstracts)} NeurIPS 2018 abstracts, {n_mentions} mentions, {dt:.2f}s wall); "
        f"{len(abstracts) / dc:.1f} abstracts per CPU-second (what one uncontended core gives; "
        "run with OMP_NUM_THREADS=1)"
    )
    return res.returncode


if __name__ == "__main__":
    raise SystemExit(main())
