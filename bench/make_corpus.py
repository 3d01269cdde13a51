"""Write a large JSON Lines corpus: NeurIPS 2018 + ICLR 2018 abstracts repeated with fresh ids.

    python bench/make_corpus.py --papers 20000 -o /tmp/kg-20k.jsonl

Copy ``k`` of a record gets the id ``ID-rK`` (copy 0 keeps its id); text, title and
metadata are unchanged, so extraction quality is that of the two real corpora.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

DATA = Path(__file__).resolve().parents[2] / "shared" / "data"
SOURCES = (DATA / "neurips2018.jsonl", DATA / "iclr2018.jsonl")


def records(papers: int, sources: tuple[Path, ...] = SOURCES) -> list[dict]:
    """``papers`` records cycling through ``sources`` with fresh ids."""
    base = [json.loads(line) for src in sources
            for line in src.read_text(encoding="utf-8").splitlines() if line.strip()]
    out = []
    for i in range(papers):
        copy, rec = divmod(i, len(base))
        r = dict(base[rec])
        r["id"] = f"{r.get('id', rec)}-r{copy}" if copy else str(r.get("id", rec))
        out.append(r)
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--papers", type=int, default=20_000)
    ap.add_argument("-o", "--out", type=Path, default=Path("/tmp/kg-20k.jsonl"))
    args = ap.parse_args()
    with args.out.open("w", encoding="utf-8") as f:
        for r in records(args.papers):
            f.write(json.dumps(r, ensure_ascii=False) + "\n")
    print(f"wrote {args.papers} records to {args.out}")


if __name__ == "__main__":
    main()
