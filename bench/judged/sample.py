"""Pick the judged set's abstracts reproducibly: ``python bench/judged/sample.py [DATA_DIR]``.

Prints ``corpus<TAB>split<TAB>id`` for 60 abstracts of each corpus, drawn with a fixed seed
in one seeded order per corpus: the first 20 drawn are ``dev``, the next 20 ``test``
(annotated 2026-12-01), the next 20 ``dev2`` (annotated 2026-12-02, positions 40-59).
The dev and test rows of both corpora come first, then the dev2 rows.
``ids.tsv`` beside this file is its output; ``make_judged.py`` joins it with the
annotations.
"""

from __future__ import annotations

import json
import random
import sys
from pathlib import Path

CORPORA = ("www2025", "naacl2024")
SEED = 13  # issue 13
#: (split, papers per corpus) in the order they are drawn.
SPLITS = (("dev", 20), ("test", 20), ("dev2", 20))
#: Drawn beyond what the splits need, so that dev2 can skip a duplicate and still have 20.
#: ``random.sample`` draws a prefix-stable order (the first k of a larger sample are the
#: sample of k) while the corpus is larger than its set-size cut-off (277 for k <= 85):
#: the first 40 are those the 2026-12-01 sampler drew with k=40.
SPARE = 10


def draw(data: Path) -> list[tuple[str, str, str]]:
    rows = []
    for corpus in CORPORA:
        with open(data / f"{corpus}.jsonl", encoding="utf-8") as f:
            papers = [json.loads(line) for line in f if line.strip()]
        texts = {p["id"]: (p["title"].strip().lower(), p["abstract"].strip()) for p in papers}
        need = sum(n for _, n in SPLITS)
        order = iter(random.Random(f"{SEED}-{corpus}").sample(sorted(texts), need + SPARE))
        seen: set[tuple[str, str]] = set()
        for split, n in SPLITS:
            taken = 0
            while taken < n:
                pid = next(order)
                # dev and test were drawn without this check (none of their 80 is a
                # duplicate); later splits skip a paper whose text is already drawn
                if split not in ("dev", "test") and texts[pid] in seen:
                    continue
                seen.add(texts[pid])
                rows.append((corpus, split, pid))
                taken += 1
    # the 2026-12-01 rows first, as they were printed then: ids.tsv only grows at its end
    return sorted(rows, key=lambda r: r[1] not in ("dev", "test"))


if __name__ == "__main__":
    root = Path(sys.argv[1]) if len(sys.argv) > 1 else Path(__file__).parents[3] / "shared" / "data"
    for row in draw(root):
        print("\t".join(row))
