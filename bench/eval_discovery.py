"""Keyword recall (dev and held-out halves of www2025, iclr2018), concepts per paper, SciERC F1.

Runs ``kg extract`` (the code of ``PYTHONPATH``) on the corpora with their keywords withheld
and scores them with the independent scorer (``../shared/eval/score_extract.py``). www2025 is
extracted as one corpus and scored per half (``split_www2025.is_dev``); only the dev half and
iclr2018 may be tuned on::

    PYTHONPATH=$PWD python bench/eval_discovery.py [--out /tmp/disc] [--skip-scierc]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from split_www2025 import is_dev  # noqa: E402

DATA = Path(__file__).resolve().parents[1].parent / "shared" / "data"
SCORER = DATA.parent / "eval" / "score_extract.py"


def extract(src: Path, out: Path) -> Path:
    inp = out / (src.stem + "_in.jsonl")
    pred = out / (src.stem + "_pred.jsonl")
    subprocess.run([sys.executable, str(SCORER), "kwinput", str(src), str(inp)], check=True)
    with pred.open("w") as f:
        subprocess.run([sys.executable, "-m", "kg", "extract", str(inp)], stdout=f, check=True)
    return pred


def kwscore(corpus: list[dict], pred: Path, out: Path, name: str) -> dict:
    gold = out / f"{name}_gold.jsonl"
    gold.write_text("".join(json.dumps(d) + "\n" for d in corpus))
    r = subprocess.run([sys.executable, str(SCORER), "kwscore", str(gold), str(pred), "0"],
                       capture_output=True, text=True)
    return json.loads(r.stdout)


def per_paper(pred: Path, ids: set[str]) -> float:
    counts = []
    for line in pred.open():
        p = json.loads(line)
        if str(p["id"]) in ids:
            counts.append(len({m["concept"] for m in p["mentions"] if m.get("accepted", True)}))
    return sum(counts) / max(1, len(counts))


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default="/tmp/disc")
    ap.add_argument("--skip-scierc", action="store_true")
    args = ap.parse_args()
    out = Path(args.out)
    out.mkdir(exist_ok=True)
    www = [json.loads(x) for x in (DATA / "www2025.jsonl").open() if x.strip()]
    pred = extract(DATA / "www2025.jsonl", out)
    for name, part in (("www2025 dev", [d for d in www if is_dev(str(d["id"]))]),
                       ("www2025 held-out", [d for d in www if not is_dev(str(d["id"]))])):
        s = kwscore(part, pred, out, name.replace(" ", "_"))
        per = per_paper(pred, {str(d["id"]) for d in part})
        print(f"{name:18} recall {s['recall']:.3f} "
              f"(incl. rejected {s['recall_incl_rejected']:.3f}) concepts/paper {per:.1f} "
              f"papers {len(part)}")
    iclr = [json.loads(x) for x in (DATA / "iclr2018.jsonl").open() if x.strip()]
    pred = extract(DATA / "iclr2018.jsonl", out)
    s = kwscore(iclr, pred, out, "iclr")
    per = per_paper(pred, {str(d["id"]) for d in iclr})
    print(f"{'iclr2018':18} recall {s['recall']:.3f} "
          f"(incl. rejected {s['recall_incl_rejected']:.3f}) concepts/paper {per:.1f}")
    if not args.skip_scierc:
        gold = DATA / "scierc" / "dev.jsonl"
        inp, pred = out / "scierc_in.jsonl", out / "scierc_pred.jsonl"
        subprocess.run([sys.executable, str(SCORER), "make-input", str(gold), str(inp)], check=True)
        with pred.open("w") as f:
            subprocess.run([sys.executable, "-m", "kg", "extract", str(inp)], stdout=f, check=True)
        r = subprocess.run([sys.executable, str(SCORER), "score", str(gold), str(pred), "0"],
                           capture_output=True, text=True)
        print("scierc dev", r.stdout.strip())


if __name__ == "__main__":
    main()
