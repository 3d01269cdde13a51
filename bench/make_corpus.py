"""Write a large JSON Lines corpus for the build benchmarks.

    python bench/make_corpus.py --papers 100000 -o /tmp/kg-100k.jsonl            # recombined
    python bench/make_corpus.py --papers 20000 --repeat -o /tmp/kg-20k-rep.jsonl  # old: repeats

``--repeat`` (the earlier corpus) repeats NeurIPS 2018 + ICLR 2018 with fresh ids
(copy ``k`` of a record gets the id ``ID-rK``): every term then occurs in at least as many
papers as there are copies, which a real corpus of that size never does.

The default, **recombined**, repeats no text: each paper is 4–8 sentences drawn from the
NeurIPS 2018, ICLR 2018, NAACL 2024 and WWW 2025 abstracts (4.4k abstracts, ~33k sentences),
shuffled together, and about half of the papers coin a new name ("We propose Vorantel
(VRTL), a …") that later papers reuse with a long-tailed frequency, so the vocabulary keeps
growing with the corpus as a real one does. Titles are recombined the same way. The output
depends only on ``--papers`` and ``--seed``.
"""

from __future__ import annotations

import argparse
import json
import random
import re
from collections.abc import Iterator
from pathlib import Path

DATA = Path(__file__).resolve().parents[2] / "shared" / "data"
SOURCES = (DATA / "neurips2018.jsonl", DATA / "iclr2018.jsonl")
RECOMBINED = (DATA / "neurips2018.jsonl", DATA / "iclr2018.jsonl", DATA / "naacl2024.jsonl",
              DATA / "www2025.jsonl")

_SENTENCE_END = re.compile(r"(?<=[a-z0-9)\]][.!?])\s+(?=[A-Z])")
_ONSETS = ["b", "br", "c", "ch", "d", "dr", "f", "fl", "g", "gr", "h", "k", "kl", "l", "m",
           "n", "p", "pl", "qu", "r", "s", "sk", "st", "t", "tr", "v", "w", "z"]
_VOWELS = ["a", "e", "i", "o", "u", "ai", "ea", "io", "ou"]
_CODAS = ["", "", "n", "r", "l", "s", "x", "m", "nt", "rd"]
_KINDS = ["network", "model", "framework", "algorithm", "method", "benchmark", "dataset",
          "metric", "architecture", "estimator"]
_AIMS = ["learns robust representations from few labels", "scales to millions of nodes",
         "adapts the step size to the curvature of the loss",
         "aligns text and graph structure", "reduces the cost of inference",
         "evaluates factual consistency", "generalises across domains",
         "captures long-range dependencies", "detects distribution shift"]


def records(papers: int, sources: tuple[Path, ...] = SOURCES) -> list[dict]:
    """``papers`` records cycling through ``sources`` with fresh ids (``--repeat``)."""
    base = [json.loads(line) for src in sources
            for line in src.read_text(encoding="utf-8").splitlines() if line.strip()]
    out = []
    for i in range(papers):
        copy, rec = divmod(i, len(base))
        r = dict(base[rec])
        r["id"] = f"{r.get('id', rec)}-r{copy}" if copy else str(r.get("id", rec))
        out.append(r)
    return out


def coined_name(k: int) -> str:
    """The ``k``-th coined name: syllables spelling ``k``, so no two names are the same.

    >>> coined_name(0), coined_name(1), coined_name(12345)
    ('Bababab', 'Bababeb', 'Badrozeab')
    """
    parts, rest = [], k
    for _ in range(3):
        rest, v = divmod(rest, len(_VOWELS))
        rest, o = divmod(rest, len(_ONSETS))
        parts.append(_ONSETS[o] + _VOWELS[v])
    while rest:
        rest, c = divmod(rest, len(_CODAS))
        parts.append(_CODAS[c] or "b")
    return ("".join(reversed(parts)) + "b").capitalize()


def _acronym(k: int, kind: str) -> str:
    """A short form for the ``k``-th name, unique among the names: ``k`` in letters."""
    letters = ""
    while True:
        k, r = divmod(k, 26)
        letters += chr(ord("A") + r)
        if not k:
            break
    return (letters + "A" * 2)[:max(3, len(letters))] + kind[0].upper()


def _a(word: str) -> str:
    return f"an {word}" if word[0] in "aeiou" else f"a {word}"


def recombined(papers: int, seed: int = 0, sources: tuple[Path, ...] = RECOMBINED
               ) -> Iterator[dict]:
    """``papers`` records whose abstracts are recombined sentences with coined names."""
    sentences: list[str] = []
    titles: list[str] = []
    for src in sources:
        for line in src.read_text(encoding="utf-8").splitlines():
            if not line.strip():
                continue
            r = json.loads(line)
            titles.append(" ".join(r.get("title", "").split()))
            sentences.extend(s for s in _SENTENCE_END.split(" ".join(r["abstract"].split()))
                             if 30 <= len(s) <= 400)
    rng = random.Random(seed)
    coined: list[tuple[str, str]] = []  # (name, kind), in the order they were coined
    years = [2018, 2019, 2020, 2021, 2022, 2023, 2024, 2025]
    venues = ["NeurIPS", "ICLR", "NAACL", "WWW"]
    for i in range(papers):
        body = rng.sample(sentences, rng.randint(4, 8))
        title = rng.choice(titles)
        if rng.random() < 0.5 or not coined:
            k, kind = len(coined), rng.choice(_KINDS)
            name = coined_name(k)
            coined.append((name, kind))
            body.insert(0, f"We propose {name} ({_acronym(k, kind)}), {_a(kind)} that "
                           f"{rng.choice(_AIMS)}.")
            title = f"{name}: {title}"
        for _ in range(rng.randint(0, 3)):  # earlier names, the recent and the old
            k = min(int(len(coined) * (1 - rng.random() ** 0.3)), len(coined) - 1)
            name, kind = coined[k]
            body.insert(rng.randint(1, len(body)),
                        f"We compare with {name} ({_acronym(k, kind)}), {_a(kind)}.")
        yield {"id": f"syn-{i:07d}", "venue": rng.choice(venues), "year": rng.choice(years),
               "title": title, "abstract": " ".join(body), "keywords": []}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--papers", type=int, default=20_000)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--repeat", action="store_true",
                    help="the older corpus: NeurIPS 2018 + ICLR 2018 repeated with fresh ids")
    ap.add_argument("-o", "--out", type=Path, default=Path("/tmp/kg-20k.jsonl"))
    args = ap.parse_args()
    rows = records(args.papers) if args.repeat else recombined(args.papers, args.seed)
    with args.out.open("w", encoding="utf-8") as f:
        for r in rows:
            f.write(json.dumps(r, ensure_ascii=False) + "\n")
    print(f"wrote {args.papers} records to {args.out}")


if __name__ == "__main__":
    main()
