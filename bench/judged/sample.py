"""Pick the judged set's abstracts reproducibly: ``python bench/judged/sample.py [DATA_DIR]``.

Prints ``corpus<TAB>split<TAB>id`` for 40 abstracts of each corpus, drawn with a fixed seed
(the first 20 drawn of each are ``dev``, the next 20 ``test``). ``ids.tsv`` beside this
file is its output; ``make_judged.py`` joins it with the annotations.
"""

from __future__ import annotations

import json
import random
import sys
from pathlib import Path

CORPORA = ("www2025", "naacl2024")
SEED = 13  # issue 13
PER_CORPUS = 40
DEV = 20


def draw(data: Path) -> list[tuple[str, str, str]]:
    rows = []
    for corpus in CORPORA:
        with open(data / f"{corpus}.jsonl", encoding="utf-8") as f:
            ids = [json.loads(line)["id"] for line in f if line.strip()]
        picked = random.Random(f"{SEED}-{corpus}").sample(sorted(ids), PER_CORPUS)
        rows += [(corpus, "dev" if i < DEV else "test", pid) for i, pid in enumerate(picked)]
    return rows


if __name__ == "__main__":
    root = Path(sys.argv[1]) if len(sys.argv) > 1 else Path(__file__).parents[3] / "shared" / "data"
    for row in draw(root):
        print("\t".join(row))
