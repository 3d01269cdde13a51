"""Page generation time and size for ~1k and ~5k nodes (run on demand, not in CI).

    python bench/bench_pages.py            # synthetic corpora
    python bench/bench_pages.py --neurips  # plus ../shared/data/neurips2018.jsonl
    python bench/bench_pages.py --out OUT  # plus the default pages of a built OUT

The default page of 1,000 papers (issue 15: at most 400 nodes, labels that do not
overlap) should take at most 2 s to make and render ("synthetic 1000 default").

Synthetic corpora: papers mention 3–9 concepts drawn with a Zipf-like skew, so
a few concepts are very common, as in real abstracts.
"""

from __future__ import annotations

import argparse
import random
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from kg.core.model import Concept, KnowledgeGraph, Mention, Paper  # noqa: E402
from visualizations.page import render  # noqa: E402
from visualizations.views import make_view  # noqa: E402


def synthetic(n_papers: int, n_concepts: int, *, seed: int = 7) -> KnowledgeGraph:
    rng = random.Random(seed)
    weights = [1 / (i + 1) ** 0.8 for i in range(n_concepts)]
    concepts = {f"c{i}": Concept(f"c{i}", f"concept {i}", "method") for i in range(n_concepts)}
    papers, mentions = {}, []
    for p in range(n_papers):
        pid = f"p{p}"
        papers[pid] = Paper(pid, f"Paper {p} about things", "An abstract sentence. " * 8)
        for cid in set(rng.choices(list(concepts), weights, k=rng.randint(3, 9))):
            mentions.append(Mention(pid, cid, "abstract", 0, 5, "thing", "A sentence.", "lex"))
    return KnowledgeGraph(papers=papers, concepts=concepts, mentions=mentions)


def measure(label: str, kg: KnowledgeGraph, view: str, **options: object) -> None:
    t0 = time.perf_counter()
    page = make_view(kg, view, **options)
    t1 = time.perf_counter()
    html = render(page)
    t2 = time.perf_counter()
    with tempfile.NamedTemporaryFile("w", suffix=".html", encoding="utf-8") as f:
        f.write(html)
    fixed = '"fixed": true' in html
    print(f"{label:<26} {view:<9} {len(page.net.nodes):>6} nodes {len(page.net.edges):>7} links"
          f"  build {t1 - t0:6.2f} s  render+layout {t2 - t1:6.2f} s"
          f"  {len(html.encode()) / 1e6:6.2f} MB  {'fixed layout' if fixed else 'physics'}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--neurips", action="store_true")
    ap.add_argument("--out", type=Path, help="a built OUT folder: time its default pages")
    args = ap.parse_args()
    render(make_view(synthetic(60, 500), "graph"))  # warm-up: imports (scipy) not timed
    measure("synthetic 1000 default", synthetic(1000, 2000), "graph")
    if args.out:
        from kg.stores.out import load_model

        kg = load_model(args.out)
        for view, opts in (("graph", {}), ("graph", {"color_by": "year"}), ("concepts", {})):
            measure(args.out.name, kg, view, **opts)
    for n_papers, n_concepts in ((700, 300), (3500, 1500)):
        kg = synthetic(n_papers, n_concepts)
        label = f"synthetic {n_papers}+{n_concepts}"
        measure(label, kg, "graph", max_nodes=n_papers + n_concepts)
        measure(label, kg, "concepts", max_nodes=min(n_concepts, 500))
    if args.neurips:
        from kg.build import build

        src = Path(__file__).resolve().parent.parent.parent / "shared/data/neurips2018.jsonl"
        with tempfile.TemporaryDirectory() as tmp:
            kg = build([src], Path(tmp) / "out", page=False).graph
        for view, opts in (("graph", {}), ("concepts", {}),
                           ("focus", {"text": "reinforcement learning"})):
            measure("neurips2018", kg, view, **opts)


if __name__ == "__main__":
    main()
