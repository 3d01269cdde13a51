"""Extraction quality, measured exactly as the project's official scorer measures it.

Two measures (see ``../shared/eval/README``):

SciERC spans (:func:`score_scierc`)
    The gold abstracts are rebuilt from their tokens (brackets unescaped, no
    space before closing punctuation), extracted, and every mention in the
    abstract whose type is not ``generic`` is compared with the gold entities
    (Generic excluded) on exact token-boundary spans: precision, recall and F1,
    untyped and typed (our types mapped to SciERC's by name).
Author keywords (:func:`score_keywords`)
    Of the author keywords that occur in a paper's title or abstract (after
    :func:`kw_norm`: lower case, hyphens as spaces, punctuation dropped, naive
    singular), the share found among the paper's mention texts, concept labels
    and aliases.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from extractors.acceptance import Rejected
from kg.core.model import KnowledgeGraph, Paper, Relation, sorted_mentions
from kg.core.text import norm_key

__all__ = [
    "KeywordScores",
    "PRF",
    "SpanScores",
    "detokenize",
    "kw_norm",
    "named_broader",
    "predictions",
    "RelationScores",
    "read_jsonl",
    "relation_key",
    "relation_record",
    "scierc_papers",
    "scierc_type",
    "score_keywords",
    "score_relations",
    "score_scierc",
]

_BR = {"-LRB-": "(", "-RRB-": ")", "-LSB-": "[", "-RSB-": "]", "-LCB-": "{", "-RCB-": "}",
       "``": '"', "''": '"'}
_NOSPACE_BEFORE = {",", ".", ";", ":", ")", "]", "}", "'s", "n't", "%", "?", "!"}
_NOSPACE_AFTER = {"(", "[", "{"}


@dataclass(frozen=True)
class PRF:
    """Precision, recall and F1 from counts."""

    tp: int
    fp: int
    fn: int

    @property
    def precision(self) -> float:
        return self.tp / (self.tp + self.fp) if self.tp + self.fp else 0.0

    @property
    def recall(self) -> float:
        return self.tp / (self.tp + self.fn) if self.tp + self.fn else 0.0

    @property
    def f1(self) -> float:
        p, r = self.precision, self.recall
        return 2 * p * r / (p + r) if p + r else 0.0


@dataclass(frozen=True)
class SpanScores:
    """SciERC span scores: untyped and typed, Generic excluded."""

    untyped: PRF
    typed: PRF
    documents: int
    gold: int


@dataclass(frozen=True)
class KeywordScores:
    """Author-keyword recall."""

    present: int
    recalled: int
    papers: int
    #: keywords recalled counting mentions the graph rejects too
    recalled_all: int = 0

    @property
    def recall(self) -> float:
        return self.recalled / self.present if self.present else 0.0

    @property
    def recall_incl_rejected(self) -> float:
        return self.recalled_all / self.present if self.present else 0.0


@dataclass(frozen=True)
class RelationScores:
    """SciERC relation scores, overall and per type (SciERC's upper-case names)."""

    overall: PRF
    by_type: dict[str, PRF]
    documents: int


def detokenize(doc: dict) -> tuple[str, list[tuple[int, int]]]:
    """A SciERC document's text and its tokens' character spans, as the scorer rebuilds them.

    >>> detokenize({"sentences": [["A", "-LRB-", "B", "-RRB-", "works", "."]]})[0]
    'A (B) works.'
    """
    toks = [_BR.get(t, t) for s in doc["sentences"] for t in s]
    text, spans = "", []
    for i, t in enumerate(toks):
        if i and t not in _NOSPACE_BEFORE and toks[i - 1] not in _NOSPACE_AFTER:
            text += " "
        spans.append((len(text), len(text) + len(t)))
        text += t
    return text, spans


def scierc_type(our_type: str | None) -> str | None:
    """The SciERC label our type maps to (by name, like the scorer); ``None`` for generic.

    >>> [scierc_type(t) for t in ["method", "task", "dataset", "metric", "concept", "generic"]]
    ['Method', 'Task', 'Material', 'Metric', 'OtherScientificTerm', None]
    """
    t = (our_type or "").lower()
    if "generic" in t:
        return None
    if any(k in t for k in ("task", "problem", "application")):
        return "Task"
    if any(k in t for k in ("metric", "measure", "score")):
        return "Metric"
    if any(k in t for k in ("dataset", "material", "data", "benchmark", "corpus")):
        return "Material"
    if any(k in t for k in ("method", "model", "algorithm", "architecture", "technique", "system")):
        return "Method"
    return "OtherScientificTerm"


def read_jsonl(path: str | Path) -> list[dict]:
    """The JSON objects of a JSON Lines file."""
    with open(path, encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


def scierc_papers(gold: list[dict]) -> list[Paper]:
    """Papers for SciERC documents: id and title are the ``doc_key``, the abstract its text."""
    return [Paper(id=d["doc_key"], title=d["doc_key"], abstract=detokenize(d)[0]) for d in gold]


def predictions(graph: KnowledgeGraph, rejected: Rejected | None = None) -> dict[str, dict]:
    """``kg extract --format jsonl`` records of ``graph``, by paper id.

    Every mention found is listed, with ``"accepted"``: ``false`` for the term mentions
    that the termhood filter kept out of the graph (``rejected``, see
    :mod:`extractors.acceptance`); ``concepts`` lists the concepts of all of them, each
    with its own ``"accepted"``, and, when the graph links it to the paper, its
    ``"salience"`` and whether the paper is ``"about"`` it (:mod:`kg.core.salience`).
    A term inside a longer reported term ("reinforcement
    learning" in "model-free reinforcement learning") is reported typed ``"generic"``:
    span scorers skip it (SciERC never nests terms).
    """
    extra = rejected.mentions if rejected is not None else []
    # mentions of a concept the graph keeps, left out in one paper (a corpus topic named
    # there in passing, :func:`~extractors.acceptance.in_passing`): not links of that paper
    dropped = {id(m) for m in extra if m.extractor != "nested" and m.concept in graph.concepts}
    concepts = {**(rejected.concepts if rejected is not None else {}), **graph.concepts}
    by_paper: dict[str, list] = {}
    for m in sorted_mentions([*graph.mentions, *extra]):
        by_paper.setdefault(m.paper, []).append(m)
    relations: dict[str, list[dict]] = {}
    for r in graph.relations:
        relations.setdefault(r.paper, []).append(relation_record(r))
    out = {}
    for pid in graph.papers:
        mentions = by_paper.get(pid, [])
        cids = sorted({m.concept for m in mentions})
        left_out = ({m.concept for m in mentions if id(m) in dropped}
                    - {m.concept for m in mentions if id(m) not in dropped}) if dropped else set()
        inside = {id(m) for m in mentions for o in mentions
                  if o.field == m.field and o.start <= m.start and m.end <= o.end
                  and (o.start, o.end) != (m.start, m.end)}
        out[pid] = {
            "id": pid,
            "mentions": [{"field": m.field, "start": m.start, "end": m.end, "text": m.text,
                          "type": "generic" if id(m) in inside else
                          concepts[m.concept].type, "concept": m.concept,
                          "accepted": m.extractor != "nested" and m.concept in graph.concepts
                          and id(m) not in dropped}
                         for m in mentions],
            "concepts": [{"id": c, "label": concepts[c].label, "type": concepts[c].type,
                          "aliases": sorted(set(concepts[c].aliases)),
                          "accepted": c in graph.concepts and c not in left_out,
                          **_salience(graph, pid, c)} for c in cids]
            + [{"id": b, "label": graph.concepts[b].label, "type": graph.concepts[b].type,
                "aliases": sorted(set(graph.concepts[b].aliases)), "accepted": True,
                "via": "broader"} for b in named_broader(graph, pid, cids)],
            "relations": relations.get(pid, []),
        }
    return out


def _salience(graph: KnowledgeGraph, pid: str, cid: str) -> dict:
    s = graph.salience.get((pid, cid))
    return {} if s is None else {"salience": s.score, "about": s.about}


def relation_record(r: Relation) -> dict:
    """A relation as ``kg extract`` prints it: type, head, tail, score, evidence.

    >>> r = Relation("p", "used-for", "abstract", 0, 3, "CRF", 8, 11, "NER", "CRF for NER.",
    ...              "pattern", 0.9)
    >>> relation_record(r)["head"]
    {'field': 'abstract', 'start': 0, 'end': 3, 'text': 'CRF'}
    """
    return {"type": r.type,
            "head": {"field": r.field, "start": r.head_start, "end": r.head_end,
                     "text": r.head_text},
            "tail": {"field": r.field, "start": r.tail_start, "end": r.tail_end,
                     "text": r.tail_text},
            "score": r.score, "evidence": r.sentence}


def named_broader(graph: KnowledgeGraph, paper_id: str, concept_ids: Iterable[str]) -> list[str]:
    """Direct broader concepts of ``concept_ids`` that the paper's own text names.

    A paper on "deep reinforcement learning" is a reinforcement-learning paper: its
    text names the broader concept inside the longer term. ``kg extract`` lists such
    concepts with ``"via": "broader"``.

    Examples
    --------
    >>> from kg.core.model import Concept, KnowledgeGraph, Paper
    >>> g = KnowledgeGraph(papers={"p": Paper("p", "", "We study deep RL agents.")},
    ...     concepts={"drl": Concept("drl", "deep RL", broader=["rl"]),
    ...               "rl": Concept("rl", "RL")})
    >>> named_broader(g, "p", ["drl"])
    ['rl']
    """
    p = graph.papers[paper_id]
    text = f" {norm_key(p.title + ' ' + p.abstract)} "
    own = set(concept_ids)
    found = set()
    for cid in own:
        for b in graph.concepts[cid].broader if cid in graph.concepts else ():
            bc = graph.concepts.get(b)
            if bc is not None and b not in own and any(
                    f" {norm_key(f)} " in text for f in (bc.label, *bc.aliases) if norm_key(f)):
                found.add(b)
    return sorted(found)


def score_scierc(gold: list[dict], preds: dict[str, dict]) -> SpanScores:
    """Exact-span scores of ``preds`` (``kg extract`` records by id) against SciERC ``gold``."""
    tp = fp = fn = ttp = n_gold = 0
    for d in gold:
        text, spans = detokenize(d)
        starts = {s: i for i, (s, _) in enumerate(spans)}
        ends = {e: i for i, (_, e) in enumerate(spans)}
        g = {(s, e): t for sent in d["ner"] for s, e, t in sent if t != "Generic"}
        p: dict[tuple, str] = {}
        for m in preds.get(d["doc_key"], {}).get("mentions", []):
            if m.get("field", "abstract") != "abstract":
                continue
            ty = scierc_type(m.get("type"))
            a, b = m["start"], m["end"]
            while a < b and text[a] == " ":
                a += 1
            if ty is None:
                continue
            if a not in starts or b not in ends:
                p[("bad", a, b)] = ty
                continue
            p[(starts[a], ends[b])] = ty
        hits = set(g) & set(p)
        tp += len(hits)
        ttp += sum(1 for k in hits if g[k] == p[k])
        fp += len(set(p) - set(g))
        fn += len(set(g) - set(p))
        n_gold += len(g)
    # strict, as the official scorer: a span on the right bounds with the wrong type is a
    # false positive and a false negative
    wrong_type = tp - ttp
    return SpanScores(untyped=PRF(tp, fp, fn), typed=PRF(ttp, fp + wrong_type, fn + wrong_type),
                      documents=len(gold), gold=n_gold)


def kw_norm(text: str) -> str:
    """The scorer's keyword key: lower case, ``-_/`` as spaces, punctuation dropped, singular.

    >>> kw_norm("Generative Adversarial Networks"), kw_norm("policy-gradient methods")
    ('generative adversarial network', 'policy gradient method')
    """
    s = re.sub(r"[-_/]+", " ", text.lower())
    s = re.sub(r"[^\w\s]", "", s)
    out = []
    for w in s.split():
        if w.endswith("ies") and len(w) > 4:
            w = w[:-3] + "y"
        elif w.endswith("s") and not w.endswith("ss") and len(w) > 3:
            w = w[:-1]
        out.append(w)
    return " ".join(out)


def score_keywords(papers: Iterable[Paper], preds: dict[str, dict]) -> KeywordScores:
    """Recall of the author keywords present in each paper's title or abstract.

    Only what the graph keeps counts (mentions and concepts not marked
    ``"accepted": false``), as in the official scorer; ``recalled_all`` counts the
    rejected ones too.
    """
    present = hit = hit_all = n = 0
    for paper in papers:
        n += 1
        text = f" {kw_norm(paper.title + ' ' + paper.abstract)} "
        rec = preds.get(str(paper.id), {})
        kept: set[str] = set()
        found: set[str] = set()
        for m in rec.get("mentions", []):
            key = kw_norm(m.get("text", ""))
            found.add(key)
            if m.get("accepted", True) is not False:
                kept.add(key)
        for c in rec.get("concepts", []):
            names = {kw_norm(c.get("label", ""))}
            names.update(kw_norm(a) for a in c.get("aliases", []) or [])
            found |= names
            if c.get("accepted", True) is not False:
                kept |= names
        for k in paper.keywords:
            nk = kw_norm(k)
            if not nk or f" {nk} " not in text:
                continue
            present += 1
            hit += nk in kept
            hit_all += nk in found
    return KeywordScores(present=present, recalled=hit, papers=n, recalled_all=hit_all)


def relation_key(a: object, b: object, c: object, d: object, kind: object) -> tuple:
    """A relation as the scorer compares it: argument bounds and upper-case type, the
    arguments of ``COMPARE`` and ``CONJUNCTION`` in a fixed order (they have no direction).

    >>> relation_key(5, 6, 1, 2, "conjunction") == relation_key(1, 2, 5, 6, "CONJUNCTION")
    True
    """
    t = re.sub(r"[\s_]+", "-", str(kind or "").strip().upper())
    if t in ("COMPARE", "CONJUNCTION") and (_order(c), _order(d)) < (_order(a), _order(b)):
        a, b, c, d = c, d, a, b
    return (a, b, c, d, t)


def _order(bound: object) -> tuple:
    """Token indices in order, a bound off the gold tokens (``("bad", offset)``) after them."""
    return (0, bound) if isinstance(bound, int) else (1, repr(bound))


def score_relations(gold: list[dict], preds: dict[str, dict]) -> RelationScores:
    """Relation scores of ``preds`` (``kg extract`` records by id) against SciERC ``gold``.

    As the official scorer's ``relscore``: a predicted relation counts when both argument
    spans start and end on gold token boundaries and its type matches (case and ``_``/``-``
    ignored); ``COMPARE`` and ``CONJUNCTION`` count either way round; gold arguments
    include Generic spans. Per type, a prediction counts under its own type.
    """
    tp: Counter[str] = Counter()
    fp: Counter[str] = Counter()
    fn: Counter[str] = Counter()
    for d in gold:
        text, spans = detokenize(d)
        starts = {s: i for i, (s, _) in enumerate(spans)}
        ends = {e: i for i, (_, e) in enumerate(spans)}
        g = {relation_key(*r) for sent in d.get("relations", []) for r in sent}
        p = set()
        for r in preds.get(d["doc_key"], {}).get("relations", []):
            head, tail = r.get("head", {}), r.get("tail", {})
            if head.get("field", "abstract") != "abstract" \
                    or tail.get("field", "abstract") != "abstract":
                continue
            bounds: list[object] = []
            for arg in (head, tail):
                a, b = arg.get("start", -1), arg.get("end", -1)
                while 0 <= a < b and text[a] == " ":
                    a += 1
                bounds += [starts.get(a, ("bad", a)), ends.get(b, ("bad", b))]
            p.add(relation_key(*bounds, r.get("type")))
        for k in g & p:
            tp[k[4]] += 1
        for k in p - g:
            fp[k[4]] += 1
        for k in g - p:
            fn[k[4]] += 1
    kinds = sorted(set(tp) | set(fp) | set(fn))
    return RelationScores(
        overall=PRF(sum(tp.values()), sum(fp.values()), sum(fn.values())),
        by_type={k: PRF(tp[k], fp[k], fn[k]) for k in kinds}, documents=len(gold))
