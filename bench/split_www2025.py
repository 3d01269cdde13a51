"""Split a JSONL corpus reproducibly into a dev half and a held-out half (by a hash of the id).

A paper is in the dev half when the first byte of ``sha1(id)`` is even, otherwise held out.
The rule depends on nothing but the id, so the halves never change as code changes::

    python bench/split_www2025.py ../shared/data/www2025.jsonl /tmp/dev.jsonl /tmp/held.jsonl
"""

from __future__ import annotations

import hashlib
import json
import sys


def is_dev(paper_id: str) -> bool:
    """Whether a paper belongs to the dev half."""
    return hashlib.sha1(paper_id.encode()).digest()[0] % 2 == 0


def main(src: str, dev: str, held: str) -> None:
    n_dev = n_held = 0
    with open(src, encoding="utf-8") as f, open(dev, "w", encoding="utf-8") as d, \
            open(held, "w", encoding="utf-8") as h:
        for line in f:
            if not line.strip():
                continue
            if is_dev(str(json.loads(line)["id"])):
                d.write(line)
                n_dev += 1
            else:
                h.write(line)
                n_held += 1
    print(f"dev {n_dev}, held-out {n_held}")


if __name__ == "__main__":
    main(*sys.argv[1:4])
