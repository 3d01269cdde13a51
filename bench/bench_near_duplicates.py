"""Near-duplicate search over synthetic concept keys: the bucket scan before, the blocked
``process.cdist`` search now, in one run, with the same merges checked.

Usage::

    python bench/bench_near_duplicates.py [--keys 909000] [--seed 1]

The keys are made the way a big corpus makes them: one to four words drawn with Zipf-like
frequencies from wordfreq's 30,000 most frequent English words, one key in twenty a
misspelling of an earlier one (a letter dropped, doubled or swapped inside a long word),
counts Zipf-like; the known keys are the shipped lexicon's. "before" is the search as it
was until this change (every key scanned against its whole bucket — same word count,
same first three characters — with ``process.extract``), copied below; "now" is
:func:`extractors.consolidate.canonical_keys`. Prints seconds, keys merged, and the load
average before and after (other work on the machine slows both alike). Not a test.
"""

from __future__ import annotations

import argparse
import itertools
import os
import random
import sys
import time
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from rapidfuzz import process  # noqa: E402
from rapidfuzz.fuzz import ratio  # noqa: E402

from kg.core.text import near_duplicate  # noqa: E402


class _BucketBefore:
    """The bucket of the search before this change (extractors/consolidate.py at main)."""

    def __init__(self) -> None:
        self.keys: list[str] = []
        self.unspaced: dict[str, int] = {}

    def append(self, key: str) -> None:
        self.unspaced.setdefault(key.replace(" ", ""), len(self.keys))
        self.keys.append(key)

    def first_near_duplicate(self, key: str) -> str | None:
        found = {i for _, _, i in process.extract(key, self.keys, scorer=ratio,
                                                   score_cutoff=92, limit=None)}
        same = self.unspaced.get(key.replace(" ", ""))
        if same is not None:
            found.add(same)
        return next((self.keys[i] for i in sorted(found)
                     if near_duplicate(key, self.keys[i])), None)


def canonical_keys_before(counts: dict[str, int], known: list[str]) -> dict[str, str]:
    buckets: dict[tuple[int, str], _BucketBefore] = defaultdict(_BucketBefore)
    for k in known:
        buckets[(len(k.split()), k[:3])].append(k)
    out = {}
    for key in sorted(counts, key=lambda k: (-counts[k], k)):
        if len(key) < 6:
            continue
        b = buckets[(len(key.split()), key[:3])]
        match = b.first_near_duplicate(key)
        if match:
            out[key] = out.get(match, match)
        else:
            b.append(key)
    return out


def _misspell(word: str, rng: random.Random) -> str:
    i = rng.randrange(3, len(word) - 1)
    kind = rng.randrange(3)
    if kind == 0:
        return word[:i] + word[i + 1:]
    if kind == 1:
        return word[:i] + word[i] + word[i:]
    return word[:i - 1] + word[i] + word[i - 1] + word[i + 1:]


def synthetic_keys(n: int, seed: int) -> dict[str, int]:
    """``n`` distinct keys and their counts (see the module docstring)."""
    from wordfreq import top_n_list

    rng = random.Random(seed)
    words = [w for w in top_n_list("en", 30000) if w.isalpha() and len(w) >= 3]
    cum = list(itertools.accumulate(1 / (r + 10) for r in range(len(words))))
    counts: dict[str, int] = {}
    made: list[str] = []
    while len(counts) < n:
        if made and rng.random() < 0.05:
            parts = rng.choice(made).split()
            j = rng.randrange(len(parts))
            if len(parts[j]) < 6:
                continue
            parts[j] = _misspell(parts[j], rng)
            key = " ".join(parts)
        else:
            key = " ".join(rng.choices(words, cum_weights=cum, k=rng.choice((1, 2, 2, 3, 3, 4))))
        if key not in counts:
            counts[key] = 1 + int(rng.paretovariate(1.2))
            made.append(key)
    return counts


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--keys", type=int, default=909_000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--skip-before", action="store_true", help="time the new search only")
    args = ap.parse_args()

    from extractors.concepts import ConceptRegistry
    from extractors.consolidate import canonical_keys
    from extractors.lexicon import load_lexicon

    registry = ConceptRegistry.from_lexicon(load_lexicon(()))
    counts = synthetic_keys(args.keys, args.seed)
    print(f"{len(counts):,} synthetic keys, {len(registry.by_key):,} known keys; "
          f"{os.cpu_count()} cores")
    print("load average before: {:.2f} {:.2f} {:.2f}".format(*os.getloadavg()))
    results = {}
    contenders = [("now", lambda: canonical_keys(counts, registry))]
    if not args.skip_before:
        contenders.insert(0, ("before", lambda: canonical_keys_before(counts,
                                                                      list(registry.by_key))))
    for name, run in contenders:
        start = time.perf_counter()
        results[name] = run()
        seconds = time.perf_counter() - start
        print(f"{name:>7}: {seconds:7.2f} s, {len(results[name]):,} keys merged")
    print("load average after:  {:.2f} {:.2f} {:.2f}".format(*os.getloadavg()))
    if "before" in results:
        same = results["before"] == results["now"]
        print("same merges:", "yes" if same else "NO")
        return 0 if same else 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
