"""Run the extractors over a corpus and return a :class:`~kg.model.KnowledgeGraph`.

The flow is corpus-level on purpose: acronym definitions are collected from
every paper first (cheap, regex-based), so that "TSFM" defined in one abstract
is recognised in all of them; then one spaCy pass matches every concept.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from pathlib import Path

import spacy
from spacy.language import Language
from spacy.tokens import Doc

from extractors import components  # noqa: F401  (registers the factories)
from extractors.acronyms import find_definitions
from extractors.components import SPANS_KEY, ConceptMatcher
from extractors.concepts import SHORT_ACRONYM, ConceptTable
from extractors.lexicon import load_lexicon
from kg.model import KnowledgeGraph, Mention, Paper, sorted_mentions

BATCH_SIZE = 64


def make_pipeline(table: ConceptTable) -> Language:
    """A blank English pipeline with a sentencizer and the concept matcher for ``table``."""
    nlp = spacy.blank("en")
    nlp.add_pipe("sentencizer")
    matcher: ConceptMatcher = nlp.add_pipe("kg_concept_matcher")
    for cid, concept in sorted(table.concepts.items()):
        forms = [concept.label, *(a for a in concept.aliases if not _is_acronym(a, table))]
        matcher.add_phrases(cid, forms)
    for short, cid in sorted(table.by_acronym.items()):
        matcher.add_acronyms(cid, [short])
    for defined in table.paper_acronyms.values():
        for short, cid in sorted(defined.items()):
            matcher.add_acronyms(cid, [short])
    return nlp


def _is_acronym(alias: str, table: ConceptTable) -> bool:
    return alias in table.by_acronym or any(alias in d for d in table.paper_acronyms.values())


def _texts(papers: Iterable[Paper]) -> Iterator[tuple[str, tuple[str, str]]]:
    for p in papers:
        for f in p.fields:
            text = p.text(f)
            if text.strip():
                yield text, (p.id, f)


def _sentence(doc: Doc, start: int) -> str:
    sent = doc[start].sent
    return sent.text.strip()


def _doc_mentions(doc: Doc, paper_id: str, field: str, table: ConceptTable) -> list[Mention]:
    own = table.paper_acronyms.get(paper_id, {})
    out = []
    for span in doc.spans[SPANS_KEY]:
        cid = span.label_
        if span.kb_id_ == "acronym":
            short = span.text[:-1] if span.text not in own and span.text.endswith("s") \
                else span.text
            cid = own.get(short) or table.by_acronym.get(short) or cid
        out.append(Mention(
            paper=paper_id, concept=cid, field=field, start=span.start_char,
            end=span.end_char, text=span.text, sentence=_sentence(doc, span.start),
            extractor=span.kb_id_ if span.kb_id_ == "acronym" else "lexicon",
        ))
    return out


def _drop_untrusted_acronyms(mentions: list[Mention], table: ConceptTable) -> list[Mention]:
    """Two-letter acronyms ("PE", "SI") count only where the paper spells out or defines them."""
    spelled = {(m.paper, m.concept) for m in mentions if m.extractor != "acronym"}
    keep = []
    for m in mentions:
        short = m.text.rstrip("s") if m.text.endswith("s") and len(m.text) > 2 else m.text
        if (m.extractor == "acronym" and len(short) <= SHORT_ACRONYM
                and (m.paper, m.concept) not in spelled
                and short not in table.paper_acronyms.get(m.paper, {})):
            continue
        keep.append(m)
    return keep


def build_table(papers: list[Paper], lexicons: Iterable[str | Path] = ()) -> ConceptTable:
    """The concept table for ``papers``: the lexicon plus the acronyms they define."""
    table = ConceptTable.from_lexicon(load_lexicon(lexicons))
    defs = [(pid, d) for text, (pid, _f) in _texts(papers) for d in find_definitions(text)]
    table.add_definitions(defs)
    return table


def extract_corpus(
    papers: list[Paper],
    *,
    lexicons: Iterable[str | Path] = (),
    progress: bool = False,
    batch_size: int = BATCH_SIZE,
) -> KnowledgeGraph:
    """Extract concept mentions from ``papers`` and return the knowledge graph.

    Parameters
    ----------
    papers : list of Paper
        The corpus, already read and checked.
    lexicons : iterable of paths, optional
        Extra SKOS lexicon files, on top of the shipped one.
    progress : bool
        Show a progress bar on stderr.
    batch_size : int
        Texts per ``nlp.pipe`` batch.

    Examples
    --------
    >>> from kg.model import Paper
    >>> kg = extract_corpus([Paper("p1", "", "Graph Neural Networks (GNNs) are calibrated.")])
    >>> sorted({m.concept for m in kg.mentions})
    ['calibration', 'graph-neural-network']
    """
    table = build_table(papers, lexicons)
    nlp = make_pipeline(table)
    texts = list(_texts(papers))
    docs = nlp.pipe(texts, as_tuples=True, batch_size=batch_size)
    if progress:
        from tqdm import tqdm

        docs = tqdm(docs, total=len(texts), unit="text", desc="extracting", leave=False)
    mentions: list[Mention] = []
    for doc, (pid, field) in docs:
        mentions.extend(_doc_mentions(doc, pid, field, table))
    mentions = sorted_mentions(_drop_untrusted_acronyms(mentions, table))
    graph = KnowledgeGraph(papers={p.id: p for p in papers}, mentions=mentions)
    used = {m.concept for m in mentions}
    graph.concepts = {cid: table.concepts[cid] for cid in sorted(_with_ancestors(used, table))}
    return graph


def _with_ancestors(ids: set[str], table: ConceptTable) -> set[str]:
    out = set(ids)
    stack = list(ids)
    while stack:
        for b in table.concepts[stack.pop()].broader:
            if b not in out:
                out.add(b)
                stack.append(b)
    return out
