"""Expert-judged concept quality: score the concepts a graph keeps per paper against a
judged set (``bench/judged/``, rubric in its README).

Each judged record names, for one abstract, its **key** concepts (what the paper is
about), the other phrases an expert **accepts** as concept nodes (each with its type or
types, and its surface variants), and the phrases that are too **generic** to help. A
paper's *linked* concepts are those of its ``kg extract`` record that the graph keeps
(not ``"accepted": false``; concepts listed ``"via": "broader"`` are not linked through a
mention, so they are left out). Each linked concept gets one verdict:

correct
    one of its names equals a form of a key or accepted entry;
generic
    otherwise, one of its names equals a generic phrase;
junk
    neither (wrong, mangled, or a phrase the expert did not list).

Names are tried in tiers, and the first tier with any match decides: the concept's
label, then the texts of its mentions in this paper, then its aliases (so a concept
labelled "performance" stays generic even if a variant matches something else).
Matching uses :func:`judged_key`: :func:`kg.core.text.norm_key` (case, plurals, dashes,
British spelling), a leading article or possessive dropped ("the model"), and spaces
removed ("pre-training" = "pretraining", "multi-modal" = "multimodal").

Type accuracy is over correct concepts: right when the concept's type is one of the
entry's types. Key-concept recall is the share of key entries that some linked concept
matches (any tier).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field

from kg.core.errors import InputError, Messages
from kg.core.model import CONCEPT_TYPES, Paper
from kg.core.text import norm_key

__all__ = [
    "SPLITS", "JudgedScores", "Verdict", "judge_paper", "judged_key", "judged_papers",
    "occurs", "score_judged", "select_split", "text_keys", "validate_judged", "with_context",
]

#: The judged set's splits: ``dev`` and ``dev2`` may be tuned on, ``test`` is held out
#: (bench/judged/README.md).
SPLITS = ("dev", "test", "dev2")
_LEADING = frozenset({"the", "a", "an", "our", "their", "its", "this", "these", "those",
                      "his", "her", "my", "your"})


def judged_key(text: str) -> str:
    """The judged set's matching key of a phrase.

    >>> judged_key("the Pre-trained Models") == judged_key("pretrained model")
    True
    >>> judged_key("Multi-modal LLMs") == judged_key("multimodal LLM")
    True
    """
    words = norm_key(text).split()
    if len(words) > 1 and words[0] in _LEADING:
        words = words[1:]
    return "".join(words)


def _word_keys(text: str) -> str:
    """``norm_key`` of each word alone: no prefix joined to the next word."""
    return " ".join(norm_key(w) for w in re.split(r"[^A-Za-z0-9]+", text) if w)


def text_keys(text: str) -> tuple[str, str]:
    """What :func:`occurs` looks a phrase up in: ``text``'s key whole and word by word.

    ``norm_key`` joins some prefixes to their word ("multi-scale" → "multiscale"), so an
    annotated "scale" is found only word by word.
    """
    return f" {norm_key(text)} ", f" {_word_keys(text)} "


def occurs(form: str, keys: tuple[str, str]) -> bool:
    """Whether an annotated phrase occurs in a text, given the text's :func:`text_keys`.

    >>> keys = text_keys("A multi-scale Graph Transformer.")
    >>> occurs("graph transformers", keys), occurs("scale", keys), occurs("graph scale", keys)
    (True, True, False)
    """
    whole, words = keys
    return f" {norm_key(form)} " in whole or f" {_word_keys(form)} " in words


@dataclass(frozen=True)
class Verdict:
    """The judgement of one linked concept of one paper."""

    paper: str
    concept: str
    label: str
    type: str
    #: "correct", "generic" or "junk"
    verdict: str
    #: the matched entry's label ("" for junk)
    entry: str = ""
    #: the matched entry is a key concept
    key: bool = False
    #: for correct concepts: the type is one the entry allows
    type_ok: bool = False


@dataclass
class JudgedScores:
    """Counts over the linked concepts of the judged papers, and the ratios asked for."""

    papers: int = 0
    linked: int = 0
    correct: int = 0
    generic: int = 0
    junk: int = 0
    typed_right: int = 0
    key_total: int = 0
    key_found: int = 0
    verdicts: list[Verdict] = field(default_factory=list)
    #: key entries no linked concept matches, as (paper id, entry label)
    missed_keys: list[tuple[str, str]] = field(default_factory=list)

    @property
    def precision(self) -> float:
        return self.correct / self.linked if self.linked else 0.0

    @property
    def generic_share(self) -> float:
        return self.generic / self.linked if self.linked else 0.0

    @property
    def junk_share(self) -> float:
        return self.junk / self.linked if self.linked else 0.0

    @property
    def type_accuracy(self) -> float:
        return self.typed_right / self.correct if self.correct else 0.0

    @property
    def key_recall(self) -> float:
        return self.key_found / self.key_total if self.key_total else 0.0

    @property
    def per_paper(self) -> float:
        return self.linked / self.papers if self.papers else 0.0


def _entry_ok(e: object) -> bool:
    return (isinstance(e, dict) and isinstance(e.get("label"), str) and bool(e["label"])
            and isinstance(e.get("types"), list) and bool(e["types"])
            and all(t in CONCEPT_TYPES for t in e["types"])
            and isinstance(e.get("variants", []), list)
            and all(isinstance(v, str) for v in e.get("variants", [])))


def validate_judged(records: list[object], path: str) -> list[dict]:
    """``records`` if each is a judged record; else :class:`InputError` naming the line."""
    for n, r in enumerate(records, 1):
        detail = None
        if not isinstance(r, dict):
            detail = "expected a JSON object"
        else:
            missing = [f for f in ("id", "split", "title", "abstract", "key", "accept",
                                   "generic") if f not in r]
            if missing:
                detail = f"no '{missing[0]}'"
            elif r["split"] not in SPLITS:
                detail = f"split must be one of {', '.join(SPLITS)}, got {r['split']!r}"
            elif not all(isinstance(r[f], list) for f in ("key", "accept", "generic")):
                detail = "'key', 'accept' and 'generic' must be lists"
            elif not all(_entry_ok(e) for e in r["key"] + r["accept"]):
                detail = ("each key/accept entry needs a 'label', 'types' from "
                          f"{', '.join(CONCEPT_TYPES)} and string 'variants'")
            elif not all(isinstance(g, str) for g in r["generic"]):
                detail = "'generic' must list strings"
        if detail:
            raise InputError(path, f"line {n}", Messages.JUDGED_RECORD.format(detail=detail))
    return records  # type: ignore[return-value]  # checked above


def select_split(records: list[dict], split: str) -> list[dict]:
    """The records of ``split`` (one of :data:`SPLITS`, or "all")."""
    return [r for r in records if split == "all" or r["split"] == split]


def judged_papers(records: Iterable[dict]) -> list[Paper]:
    """Papers to extract: id, title and abstract only (author keywords withheld)."""
    return [Paper(id=str(r["id"]), title=r["title"], abstract=r["abstract"]) for r in records]


def with_context(papers: list[Paper], context: Iterable[Paper]) -> list[Paper]:
    """``papers``, then the ``context`` papers with other ids, all without keywords.

    Corpus statistics (document frequency, acronyms defined elsewhere, termhood) decide
    what the graph keeps, so the judged abstracts can be extracted inside the corpus
    they come from; only the judged ones are scored.

    >>> ctx = [Paper("a", "A", "x", keywords=["k"]), Paper("b", "B", "y", keywords=["k"])]
    >>> [(p.id, p.keywords) for p in with_context([Paper("a", "A", "x")], ctx)]
    [('a', []), ('b', [])]
    """
    ids = {p.id for p in papers}
    return papers + [Paper(id=p.id, title=p.title, abstract=p.abstract)
                     for p in context if p.id not in ids]


def _forms(entry: dict) -> set[str]:
    return {judged_key(f) for f in [entry["label"], *entry.get("variants", [])]} - {""}


def judge_paper(record: dict, pred: dict) -> tuple[list[Verdict], list[str]]:
    """Verdicts on the linked concepts of one paper, and the key entries none matches."""
    entries = [(e, True) for e in record["key"]] + [(e, False) for e in record["accept"]]
    forms = [(_forms(e), e, key) for e, key in entries]
    generic = {judged_key(g) for g in record["generic"]} - {""}
    texts: dict[str, set[str]] = {}
    for m in pred.get("mentions", []):
        if m.get("accepted", True) is not False:
            texts.setdefault(m.get("concept", ""), set()).add(judged_key(m.get("text", "")))
    verdicts, names_all = [], set()
    for c in pred.get("concepts", []):
        if c.get("accepted", True) is False or c.get("via"):
            continue
        tiers = [{judged_key(c.get("label", ""))}, texts.get(c.get("id", ""), set()),
                 {judged_key(a) for a in c.get("aliases", []) or []}]
        names_all |= set().union(*tiers)
        v = Verdict(str(record["id"]), c.get("id", ""), c.get("label", ""), c.get("type", ""),
                    "junk")
        for names in tiers:
            hits = [(e, key) for f, e, key in forms if f & names]
            if hits:
                ok = [e for e, _ in hits if c.get("type") in e["types"]]
                best = (ok or [e for e, _ in hits])[0]
                v = Verdict(v.paper, v.concept, v.label, v.type, "correct", best["label"],
                            any(key for _, key in hits), bool(ok))
                break
            if generic & names:
                v = Verdict(v.paper, v.concept, v.label, v.type, "generic",
                            next(g for g in record["generic"] if judged_key(g) in names))
                break
        verdicts.append(v)
    missed = [e["label"] for e in record["key"] if not _forms(e) & names_all]
    return verdicts, missed


def score_judged(records: Iterable[dict], preds: dict[str, dict]) -> JudgedScores:
    """Scores of ``preds`` (``kg extract`` records by paper id) on the judged ``records``.

    Examples
    --------
    >>> rec = {"id": "p", "key": [{"label": "graph neural network", "types": ["method"],
    ...        "variants": ["GNN"]}], "accept": [], "generic": ["performance"]}
    >>> pred = {"concepts": [{"id": "gnn", "label": "GNNs", "type": "method"},
    ...                      {"id": "perf", "label": "performance", "type": "metric"},
    ...                      {"id": "x", "label": "unclear whether", "type": "concept"}]}
    >>> s = score_judged([rec], {"p": pred})
    >>> s.precision, s.generic, s.junk, s.key_recall
    (0.3333333333333333, 1, 1, 1.0)
    """
    s = JudgedScores()
    for r in records:
        verdicts, missed = judge_paper(r, preds.get(str(r["id"]), {}))
        s.papers += 1
        s.linked += len(verdicts)
        s.correct += sum(v.verdict == "correct" for v in verdicts)
        s.generic += sum(v.verdict == "generic" for v in verdicts)
        s.junk += sum(v.verdict == "junk" for v in verdicts)
        s.typed_right += sum(v.type_ok for v in verdicts)
        s.key_total += len(r["key"])
        s.key_found += len(r["key"]) - len(missed)
        s.verdicts += verdicts
        s.missed_keys += [(str(r["id"]), m) for m in missed]
    return s
