"""Author keywords present in the text that extraction misses, most frequent first.

Run ``kg extract CORPUS.jsonl > PRED.jsonl`` first, then::

    python bench/missed_keywords.py ../shared/data/iclr2018.jsonl PRED.jsonl [--top 60]

A keyword counts as found only if the graph keeps it (mentions and concepts not
marked ``"accepted": false``). Prints ``count  keyword`` for each missed keyword
(``kw_norm`` form, as the scorer compares them), so that the real ML concepts among
them can be added to
``extractors/data/lexicon.ttl``. Keywords already known to the lexicon (label, alias
or acronym) are marked ``*``: there the miss is a boundary or context problem, not a
vocabulary one.
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from extractors.evaluation import kw_norm, read_jsonl  # noqa: E402
from extractors.lexicon import load_lexicon  # noqa: E402


def missed(corpus: list[dict], preds: dict[str, dict]) -> Counter[str]:
    """``kw_norm`` keywords present in a paper's text but not among its predictions."""
    out: Counter[str] = Counter()
    for d in corpus:
        text = f" {kw_norm(d['title'] + ' ' + d['abstract'])} "
        rec = preds.get(str(d["id"]), {})
        # only what the graph keeps counts, as in the scorer: rejected mentions are misses
        found = {kw_norm(m.get("text", "")) for m in rec.get("mentions", [])
                 if m.get("accepted", True) is not False}
        for c in rec.get("concepts", []):
            if c.get("accepted", True) is False:
                continue
            found.add(kw_norm(c.get("label", "")))
            found.update(kw_norm(a) for a in c.get("aliases", []) or [])
        for k in d.get("keywords", []):
            nk = kw_norm(k)
            if nk and f" {nk} " in text and nk not in found:
                out[nk] += 1
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("corpus")
    ap.add_argument("pred")
    ap.add_argument("--top", type=int, default=60)
    args = ap.parse_args()
    preds = {str(r["id"]): r for r in read_jsonl(args.pred)}
    lex = load_lexicon([])
    known = {kw_norm(f) for e in lex.entries.values()
             for f in (e.label, *e.aliases, *e.acronyms)}
    counts = missed(read_jsonl(args.corpus), preds)
    print(f"{sum(counts.values())} missed keyword occurrences, {len(counts)} distinct")
    for k, n in counts.most_common(args.top):
        print(f"{n:4d}  {k}{'  *' if k in known else ''}")


if __name__ == "__main__":
    main()
