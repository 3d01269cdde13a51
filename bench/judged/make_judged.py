"""Build ``judged.jsonl`` from ``ids.tsv``, ``annotations.txt`` and the corpora.

    PYTHONPATH=. python bench/judged/make_judged.py [DATA_DIR]

DATA_DIR defaults to ``../shared/data``. Only annotated papers are written, in the order
of ``ids.tsv``. Every label, variant and generic phrase must occur in its paper's title
or abstract (compared with :func:`kg.core.text.norm_key`), and no phrase may be both
accepted and generic: a violation stops the build with the paper id and the phrase.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from extractors.judged import occurs, text_keys
from kg.core.model import CONCEPT_TYPES
from kg.core.text import norm_key

HERE = Path(__file__).parent


def parse(path: Path) -> dict[str, dict]:
    """Annotation blocks by paper id (``GLOBAL`` included)."""
    blocks: dict[str, dict] = {}
    cur: dict | None = None
    for n, raw in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        line = raw.strip()
        if not line or line.startswith("# "):
            continue
        if line.startswith("## "):
            cur = blocks.setdefault(line[3:].strip(), {"key": [], "accept": [], "generic": []})
            continue
        if cur is None:
            sys.exit(f"{path}:{n}: annotation before the first '## ID' line")
        head, _, rest = line.partition(":")
        if head == "G":
            cur["generic"] += [p.strip() for p in rest.split(";") if p.strip()]
            continue
        kind, _, types = head.partition(" ")
        forms = [f.strip() for f in rest.split("|") if f.strip()]
        tys = types.strip().split("/")
        if kind not in ("K", "A") or not forms or any(t not in CONCEPT_TYPES for t in tys):
            sys.exit(f"{path}:{n}: expected 'K|A TYPE[/TYPE]: label | variant ...': {line}")
        entry = {"label": forms[0], "types": tys, "variants": forms[1:]}
        cur["key" if kind == "K" else "accept"].append(entry)
    return blocks


def build(data: Path) -> list[dict]:
    blocks = parse(HERE / "annotations.txt")
    glob = blocks.pop("GLOBAL", {"generic": []})["generic"]
    corpora: dict[str, dict[str, dict]] = {}
    out, errors = [], []
    for row in (HERE / "ids.tsv").read_text(encoding="utf-8").splitlines():
        corpus, split, pid = row.split("\t")
        if pid not in blocks:
            continue
        if corpus not in corpora:
            with open(data / f"{corpus}.jsonl", encoding="utf-8") as f:
                corpora[corpus] = {r["id"]: r for r in map(json.loads, f)}
        paper = corpora[corpus][pid]
        # a phrase also occurs word by word: norm_key joins some prefixes to their word
        # ("post-pandemic" -> "postpandemic")
        keys = text_keys(paper["title"] + " " + paper["abstract"])

        b = blocks.pop(pid)
        accepted: set[str] = set()
        for e in b["key"] + b["accept"]:
            for form in [e["label"], *e["variants"]]:
                k = norm_key(form)
                if not occurs(form, keys):
                    errors.append(f"{pid}: {form!r} does not occur in the title or abstract")
                if k in accepted and form == e["label"]:
                    errors.append(f"{pid}: {form!r} is annotated twice")
                accepted.add(k)
        for form in b["generic"]:
            if not occurs(form, keys):
                errors.append(f"{pid}: generic {form!r} does not occur in the title or abstract")
            if norm_key(form) in accepted:
                errors.append(f"{pid}: {form!r} is both accepted and generic")
        generic = list(dict.fromkeys(
            b["generic"] + [g for g in glob
                            if occurs(g, keys) and norm_key(g) not in accepted]))
        out.append({"id": pid, "corpus": corpus, "split": split, "title": paper["title"],
                    "abstract": paper["abstract"], "key": b["key"], "accept": b["accept"],
                    "generic": generic})
    if blocks:
        errors.append(f"annotations for ids not in ids.tsv: {sorted(blocks)}")
    if errors:
        sys.exit("\n".join(errors))
    return out


if __name__ == "__main__":
    root = Path(sys.argv[1]) if len(sys.argv) > 1 else HERE.parents[2] / "shared" / "data"
    records = build(root)
    with open(HERE / "judged.jsonl", "w", encoding="utf-8") as f:
        for r in records:
            f.write(json.dumps(r, ensure_ascii=False) + "\n")
    n = {s: sum(r["split"] == s for r in records) for s in ("dev", "test", "dev2")}
    print(f"judged.jsonl: {len(records)} papers ({n['dev']} dev, {n['test']} test, "
          f"{n['dev2']} dev2)")
