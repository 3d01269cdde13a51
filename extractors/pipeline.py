"""Run the extractors over a corpus and return a :class:`~kg.core.model.KnowledgeGraph`.

The flow is corpus-level on purpose:

1. acronym definitions are collected from every paper first (cheap,
   regex-based), so that "TSFM" defined in one abstract is recognised in all;
2. one spaCy pass over every title and abstract (markup masked, offsets kept)
   runs the SciERC span model (``tok2vec`` + ``ner``, when its weights are
   installed), the lexicon/acronym matcher and the coined-name patterns;
3. :mod:`extractors.consolidate` unions the three, drops generic spans, and
   normalises the new terms into concepts across the corpus (spelling and
   near-duplicates merged, types voted, placed under their heads).
"""

from __future__ import annotations

import hashlib
import os
import socket
import sys
from array import array
from collections.abc import Iterable, Iterator, Mapping, MutableMapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import spacy
from spacy.attrs import IDX, LENGTH
from spacy.language import Language
from spacy.tokens import Doc

from extractors import patterns, text_cache
from extractors.acceptance import Rejected, TermAcceptance
from extractors.acronyms import find_definitions
from extractors.components import SPANS_KEY, ConceptMatcher  # registers the factories too
from extractors.concepts import ConceptRegistry
from extractors.consolidate import DocSpans, resolve_corpus, token_doc
from extractors.field_texts import CHUNK_CHARS, FieldTexts, chunks, field_texts
from extractors.lexicon import load_lexicon
from extractors.patterns import SPANS_KEY as COINED_KEY
from extractors.relation_file import RelationFile
from extractors.relation_model import RelationModel, load_relation_model
from extractors.relations import find_relations, sorted_relations
from extractors.span_file import SpanFile
from extractors.span_model import LABEL_TO_TYPE, MODEL_DIR, load_model, trim_edges
from extractors.termhood import CorpusStats
from extractors.text_cache import CacheKeys, TextRecord
from extractors.tokenizer_warmup import frequent_chunks, warm_tokenizer
from extractors.workers import Workers, default_workers, sendable
from kg.core.collect import fewer_collections, return_free_pages
from kg.core.errors import Messages, WorkerError
from kg.core.model import Concept, KnowledgeGraph, Mention, Paper, Relation
from kg.core.paper_file import PaperFile, StoredPaper

__all__ = [
    "BATCH_CHARS",
    "BATCH_SIZE",
    "CHUNK_CHARS",
    "DEFAULT_ACCEPTANCE",
    "FORK_MAX_TEXTS",
    "MULTIPROCESS_MIN_TEXTS",
    "PipelineSpec",
    "WORKER_CHUNK",
    "base_pipeline",
    "build_registry",
    "cache_digest",
    "cache_key",
    "chunks",
    "corpus_relations",
    "extract_corpus",
    "field_texts",
    "make_pipeline",
    "model_fingerprint",
    "model_spans",
    "pipeline_fingerprint",
    "record_spans",
    "spans_record",
    "span_model_dir",
    "text_record",
    "token_bounds",
]

BATCH_SIZE = 64
#: The termhood filter the graph uses (see :mod:`extractors.acceptance`).
DEFAULT_ACCEPTANCE = TermAcceptance()
#: Most characters in one ``nlp.pipe`` batch (with at most :data:`BATCH_SIZE` texts).
BATCH_CHARS = 2 * CHUNK_CHARS
#: Texts from which extraction uses every core by default (:func:`extract_corpus`).
#: Workers build the pipeline once each and send back only the spans they found, never
#: ``Doc`` objects (spaCy's own ``n_process`` pickles every ``Doc``, which made two
#: processes slower than one on NeurIPS 2018); starting them costs a few seconds.
MULTIPROCESS_MIN_TEXTS = 1000
#: Texts up to which local workers are forked from the extraction process (they start at
#: once, sharing its loaded pipeline and what it holds: ~0.2 GB of pages each at 100,000
#: papers); from here they are started fresh and load it themselves (~5 s more wall on 2
#: cores). A forked worker comes to hold a private copy of each page of the extraction
#: process that process writes to, which grows with the corpus; a fresh one costs the same
#: at any size. What the extraction process holds when they fork is frozen (no collection
#: sweeps it, :class:`~extractors.workers.Workers`), and its texts are on disk: at 100,000
#: papers (200,000 texts) the forked workers' build peaked ~0.1 GB below the fresh
#: workers' one (bench/README.md, issue 17). Beyond that size it was not measured.
FORK_MAX_TEXTS = 250_000
#: Texts per task handed to a worker; the in-process run goes chunk by chunk too, so that
#: every ``nlp.pipe`` batch, and so every result, is the same whatever runs it.
WORKER_CHUNK = 64
#: The worker-level cache: the pipeline a worker process built (at most one), keyed by its
#: model, and the matcher terms it holds now.
_WORKER_PIPELINE: dict[tuple[str | None, str], list] = {}


def span_model_dir() -> Path | None:
    """The installed span-model directory, or ``None`` when its weights are absent.

    ``KG_SPAN_MODEL`` may name another spaCy pipeline directory (``"none"`` disables
    the model): a development and evaluation override, like ``kg extract --span-model``.
    """
    env = os.environ.get("KG_SPAN_MODEL")
    if env:
        return None if env.lower() == "none" else Path(env)
    if (MODEL_DIR / "config.cfg").is_file() and (MODEL_DIR / "ner" / "model").is_file():
        return MODEL_DIR
    return None


def make_pipeline(registry: ConceptRegistry, *, span_model: Path | None | bool = True) -> Language:
    """The extraction pipeline for ``registry``.

    Parameters
    ----------
    registry : ConceptRegistry
        Concepts whose labels, aliases and acronyms the matcher finds.
    span_model : Path, bool or None
        A spaCy pipeline directory holding the span model (``tok2vec`` + ``ner``);
        ``True`` uses the installed one if present, ``False``/``None`` none.

    Returns
    -------
    Language
        ``[tok2vec, ner,] sentencizer, kg_concept_matcher, kg_coined_names``.
    """
    model_dir = span_model_dir() if span_model is True else (span_model or None)
    nlp = base_pipeline(model_dir)
    matcher: ConceptMatcher = nlp.get_pipe("kg_concept_matcher")
    for cid, concept in sorted(registry.concepts.items()):
        forms = [concept.label, *(a for a in concept.aliases if not _is_acronym(a, registry))]
        matcher.add_phrases(cid, forms)
    for short, cid in sorted(registry.by_acronym.items()):
        matcher.add_acronyms(cid, [short])
    for defined in registry.paper_acronyms.values():
        for short, cid in sorted(defined.items()):
            matcher.add_acronyms(cid, [short])
    return nlp


def base_pipeline(model_dir: Path | None) -> Language:
    """The extraction pipeline with a concept matcher that matches nothing yet.

    >>> base_pipeline(None).pipe_names
    ['sentencizer', 'kg_concept_matcher', 'kg_coined_names']
    """
    if model_dir:
        # a fresh copy: components are added to it, the cached one stays untouched
        nlp = load_model(model_dir, exclude=["parser", "tagger", "lemmatizer",
                                             "attribute_ruler", "senter"])
    else:
        nlp = spacy.blank("en")
    nlp.add_pipe("sentencizer")
    nlp.add_pipe("kg_concept_matcher")
    nlp.add_pipe("kg_coined_names")
    return nlp


@dataclass(frozen=True)
class PipelineSpec:
    """What a worker process needs to build the extraction pipeline of a build.

    The model is not sent: each worker loads its own copy once (the one shipped in the
    package, or ``model_dir`` if that exists where the worker runs) and checks that it is
    the build's (``fingerprint``); the concept matcher's terms come from the build.
    """

    model_dir: str | None
    fingerprint: str  # model_fingerprint(model) + pipeline_fingerprint()
    terms: bytes  # ConceptMatcher.to_bytes()
    batch_size: int = BATCH_SIZE
    #: ``(relation model, patterns)`` when relations are found with the extraction
    #: (:func:`_relations_with_extraction`), else ``None``
    relations: tuple[RelationModel, bool] | None = None
    #: the corpus's frequent chunks, tokenized once when the pipeline is loaded
    #: (:mod:`extractors.tokenizer_warmup`)
    warm: tuple[str, ...] = ()

    def pipeline(self) -> Language:
        """The pipeline, from this worker process's cache; loaded once per model."""
        key = (self.model_dir, self.fingerprint)
        cached = _WORKER_PIPELINE.get(key)
        if cached is None:
            _WORKER_PIPELINE.clear()  # one pipeline per worker: a new model replaces the old
            nlp = base_pipeline(self._model_here())
            warm_tokenizer(nlp, self.warm)
            cached = _WORKER_PIPELINE[key] = [nlp, b""]
        nlp, terms = cached
        if terms != self.terms:  # another build on a long-lived cluster
            nlp.get_pipe("kg_concept_matcher").from_bytes(self.terms)
            cached[1] = self.terms
        return nlp

    def _model_here(self) -> Path | None:
        """The model directory in this process: the build's if it exists here, else the
        one installed here; either must be the build's model (same fingerprint)."""
        model: Path | None = None
        if self.model_dir is not None:
            model = Path(self.model_dir)
            if not (model / "config.cfg").is_file():
                model = span_model_dir() or MODEL_DIR
        if model_fingerprint(model) + pipeline_fingerprint() != self.fingerprint:
            raise WorkerError(Messages.WORKER_MODEL_DIFFERS.format(
                worker=f"{socket.gethostname()} (pid {os.getpid()})",
                model=model or "none"))
        return model


def _is_acronym(alias: str, registry: ConceptRegistry) -> bool:
    return alias in registry.by_acronym or any(alias in d for d in registry.paper_acronyms.values())


def model_spans(doc: Doc) -> list[tuple[int, int, str]]:
    """The span model's terms in ``doc`` (trimmed, typed), as character offsets into it."""
    ents = []
    for e in doc.ents:
        s, t = trim_edges(doc, e.start, e.end)
        if s < t:
            ents.append((doc[s].idx, doc[t - 1].idx + len(doc[t - 1]), _model_type(e.label_)))
    return ents


def text_record(doc: Doc) -> TextRecord:
    """What the pipeline found in ``doc`` that does not depend on the concept registry."""
    return TextRecord(
        model=model_spans(doc),
        sents=[(s.start_char, s.end_char) for s in doc.sents],
        coined=[(s.start_char, s.end_char, s.label_) for s in doc.spans[COINED_KEY]],
        tokens=token_bounds(doc),
    )


def record_spans(record: TextRecord, doc: Doc, paper_id: str, field: str,
                 offset: int = 0) -> DocSpans:
    """``record`` and the concept matcher's spans in ``doc``, moved by ``offset`` into the field.

    At offset 0 (every text but the later chunks of a huge field) the result shares
    ``record``'s lists and array instead of copying them: neither is changed afterwards, and
    an incremental build keeps both for every text until it writes its cache.
    """
    lexicon = [(s.start_char + offset, s.end_char + offset, s.label_, s.kb_id_)
               for s in doc.spans[SPANS_KEY]]
    if not offset:
        return DocSpans(paper=paper_id, field=field, sents=record.sents, lexicon=lexicon,
                        model=record.model, coined=record.coined, tokens=record.tokens)
    return DocSpans(
        paper=paper_id,
        field=field,
        sents=[(a + offset, b + offset) for a, b in record.sents],
        lexicon=lexicon,
        model=[(a + offset, b + offset, t) for a, b, t in record.model],
        coined=[(a + offset, b + offset, t) for a, b, t in record.coined],
        tokens=record.tokens + offset,
    )


def spans_record(spans: DocSpans) -> TextRecord:
    """The :class:`~extractors.text_cache.TextRecord` of a text extracted at offset 0, read
    back from its ``spans`` (sharing their lists, as :func:`record_spans` made them)."""
    assert spans.tokens is not None
    return TextRecord(model=spans.model, sents=spans.sents, coined=spans.coined,
                      tokens=spans.tokens)


def token_bounds(doc: Doc) -> np.ndarray:
    """Each token's (start, end) character offsets, one row per token."""
    cut = doc.to_array([IDX, LENGTH]).astype(np.int32)
    cut[:, 1] += cut[:, 0]
    return cut


def _model_type(label: str) -> str:
    return LABEL_TO_TYPE.get(label, label.lower() if label.islower() else "concept")


def model_fingerprint(model_dir: Path | None) -> str:
    """A hash of the span model's weights and config (``""`` without a model)."""
    if not model_dir:
        return ""
    digest = hashlib.sha1()
    for path in sorted(Path(model_dir).rglob("*")):
        if path.is_file():
            digest.update(str(path.relative_to(model_dir)).encode() + b"\0")
            digest.update(path.read_bytes())
    return digest.hexdigest()


def pipeline_fingerprint() -> str:
    """A hash of what the kept findings (:class:`~extractors.text_cache.TextRecord`) depend on
    besides the text and the model weights: the cache format, spaCy, the coined-name patterns."""
    made_of = repr((text_cache.VERSION, spacy.__version__, patterns.match_patterns(),
                    patterns.NAME_LIKE.pattern))
    return hashlib.sha1(made_of.encode()).hexdigest()


def cache_key(text: str, fingerprint: str) -> str:
    """Key of ``text``'s span-model output: a hash of the model's fingerprint and the text."""
    return cache_digest(text, fingerprint).hex()


def cache_digest(text: str, fingerprint: str) -> bytes:
    """:func:`cache_key` as bytes (what :class:`~extractors.text_cache.CacheKeys` holds)."""
    return hashlib.sha1(f"{fingerprint}\0{text}".encode()).digest()


def build_registry(papers: list[Paper], lexicons: Iterable[str | Path] = ()) -> ConceptRegistry:
    """The concept registry for ``papers``: the lexicon, the acronyms they define, and
    their author keywords (each a term of the whole corpus)."""
    registry = ConceptRegistry.from_lexicon(load_lexicon(lexicons))
    defs = [(pid, d) for text, (pid, _f, _o) in field_texts(papers) for d in find_definitions(text)]
    registry.add_definitions(defs)
    # after the definitions: a keyword spelled as a defined long form joins that concept
    registry.add_keywords(k for p in papers for k in p.keywords)
    return registry


def _run(nlp: Language, texts: list, indices: list[int], records: dict[int, TextRecord],
         batch_size: int = BATCH_SIZE) -> Iterator[tuple[int, DocSpans, TextRecord | None]]:
    """``(index, DocSpans, TextRecord)`` for ``texts[indices]``.

    Texts in ``records`` (kept by an earlier build) only go through the concept matcher,
    on a ``Doc`` rebuilt from their tokens; their record is not sent back (``None``).
    """
    fresh = [i for i in indices if i not in records]
    for batch in _batches(fresh, texts, batch_size):
        for doc, i in nlp.pipe(((texts[i][0], i) for i in batch), as_tuples=True,
                               batch_size=len(batch)):
            pid, field, offset = texts[i][1]
            record = text_record(doc)
            yield i, record_spans(record, doc, pid, field, offset), record
    matcher = nlp.get_pipe("kg_concept_matcher")
    for i in indices:
        if i in records:
            text, (pid, field, offset) = texts[i]
            doc = matcher(token_doc(nlp.vocab, text, records[i].tokens))
            yield i, record_spans(records[i], doc, pid, field, offset), None


def _relations_with_extraction(model: RelationModel | None) -> bool:
    """Whether a text's relations can be found as soon as it is extracted: when ``model``
    has an argument model, they depend on the text, its sentences and its span-model terms
    alone (not on the corpus-level mentions), so a worker finds them in the same task and
    the texts are not sent to it a second time."""
    return model is not None and getattr(model, "arguments", None) is not None


def _batches(indices: list[int], texts: list, size: int) -> Iterator[list[int]]:
    """``indices`` in runs of at most ``size`` texts and :data:`BATCH_CHARS` characters.

    The span model's memory grows with the characters of a batch: 64 chunks of a huge
    abstract at once took gigabytes, 64 ordinary abstracts (~100,000 characters) do not.
    """
    batch: list[int] = []
    chars = 0
    for i in indices:
        n = len(texts[i][0])
        if batch and (len(batch) == size or chars + n > BATCH_CHARS):
            yield batch
            batch, chars = [], 0
        batch.append(i)
        chars += n
    if batch:
        yield batch


#: One task: ``(index, text, (paper id, field, offset), kept record or None, field text or
#: None)`` per text; the field's text as read is there when the text is a whole field and
#: its relations are to be found with it (the masked text itself when nothing was masked).
_Chunk = list[tuple[int, str, tuple[str, str, int], TextRecord | None, str | None]]
#: What a task gives back per text: ``(index, DocSpans, new record or None, relations of
#: the field or None)``; a new record at offset 0 is not sent (:func:`spans_record`).
_Extracted = tuple[int, DocSpans, TextRecord | None, list[Relation] | None]


def _run_chunk(nlp: Language, chunk: _Chunk, batch_size: int,
               relations: tuple[RelationModel, bool] | None) -> list[_Extracted]:
    """The chunk's texts through ``nlp``, in a spaCy memory zone: the strings its texts add
    to the vocabulary (every new word, and a growing corpus keeps coining names) are dropped
    when it ends, or a worker's memory would grow with the corpus. What it returns holds
    plain strings and numbers, none of the zone's ``Doc`` objects or string ids."""
    with nlp.memory_zone():
        texts = {i: (text, where) for i, text, where, _, _ in chunk}
        records = {i: r for i, _, _, r, _ in chunk if r is not None}
        raw = {i: r for i, _, _, _, r in chunk if r is not None}
        out = []
        for i, ds, record in _run(nlp, texts, [i for i, *_ in chunk], records, batch_size):
            found = None
            if relations is not None and i in raw:
                model, patterns = relations
                found = find_relations(ds.paper, ds.field, raw[i], ds.sents, ds.model,
                                       model=model, patterns=patterns)
            # a text at offset 0 sends its record as its spans (spans_record): not twice
            out.append((i, ds, record if texts[i][1][2] else None, found))
    # what the chunk's docs held (arrays, long strings: blocks of the C heap) back to the
    # system: kept by glibc, a worker's memory stays at the largest chunk it has seen
    return_free_pages()
    return out


def _extract_task(spec: PipelineSpec, chunk: _Chunk) -> list[_Extracted]:
    """One task in a worker process: the chunk's texts through the worker's pipeline."""
    return _run_chunk(spec.pipeline(), chunk, spec.batch_size, spec.relations)


def _extract_here(shared: tuple[Language, int, tuple[RelationModel, bool] | None],
                  chunk: _Chunk) -> list[_Extracted]:
    """One task in this process, with the pipeline already built here."""
    nlp, batch_size, relations = shared
    return _run_chunk(nlp, chunk, batch_size, relations)


def _extract(workers: Workers, nlp: Language, spec: PipelineSpec | None, texts: FieldTexts,
             records: _KeptRecords, batch_size: int,
             relations: tuple[RelationModel, bool] | None = None,
             papers: list[Paper] | None = None) -> Iterator[_Extracted]:
    """:func:`_run` over every text, chunk by chunk, here or on the workers (``spec``);
    with ``relations``, also the relations of each text that is a whole field of
    ``papers``."""
    # fresh and kept texts in separate chunks: each fresh chunk is then one nlp.pipe pass
    order = [i for i in range(len(texts)) if i not in records] + sorted(records)
    by_id = {p.id: p for p in papers or ()}

    def raw(i: int) -> str | None:
        text, (pid, field, offset) = texts[i]
        if relations is None or offset:
            return None
        whole = by_id[pid].text(field)
        if len(whole) != len(text):  # the first chunk of a huge field: found later
            return None
        return text if whole == text else whole  # the same object is pickled once

    def task(i: int) -> tuple[int, str, tuple[str, str, int], TextRecord | None, str | None]:
        text, where = texts[i]
        whole = raw(i)
        if spec is not None:  # pickled for the workers
            copy = sendable(text)
            text, whole = copy, (copy if whole is text else
                                 None if whole is None else sendable(whole))
        return (i, text, where, records.get(i), whole)

    tasks = ([task(i) for i in order[k:k + WORKER_CHUNK]]
             for k in range(0, len(order), WORKER_CHUNK))
    if spec is not None:
        results = workers.map(_extract_task, spec, tasks, what="extraction")
    else:
        results = workers.map(_extract_here, (nlp, batch_size, relations), tasks,
                              what="extraction")
    for result in results:
        yield from result


@fewer_collections()
def extract_corpus(
    papers: list[Paper],
    *,
    lexicons: Iterable[str | Path] = (),
    progress: bool = False,
    batch_size: int = BATCH_SIZE,
    span_model: Path | None | bool = True,
    workers: int | None = None,
    scheduler: str | None = None,
    cache: MutableMapping[str, TextRecord] | None = None,
    cache_to: Path | None = None,
    nested: str = "modifier",
    propagate_terms: bool = True,
    acceptance: TermAcceptance | None = DEFAULT_ACCEPTANCE,
    rejected: Rejected | None = None,
    relation_model: RelationModel | bool | None = True,
    relation_patterns: bool = True,
    relations_on_disk: bool = False,
    papers_on_disk: bool = False,
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
    span_model : Path, bool or None
        The span model to use: ``True`` (the installed one, if any), a pipeline
        directory, or ``False``/``None`` for lexicon, acronyms and patterns only.
    workers : int, optional
        Worker processes of a local Dask cluster (``1``: this process alone, no cluster);
        by default every core for corpora large enough to pay for starting them
        (:data:`MULTIPROCESS_MIN_TEXTS`), else 1. Extraction runs on them; they end
        when it is over (term propagation then runs here, where an existing cluster's
        workers would do it). The result is the same whatever the number.
    scheduler : str, optional
        The address of an existing Dask cluster's scheduler (``tcp://host:8786``) to run
        on instead of local workers; its workers need ``kg-abstracts`` installed (the same
        version: each loads the span model shipped in it).
    cache : MutableMapping, optional
        What each text yielded besides concept matches (:func:`cache_key` →
        :class:`~extractors.text_cache.TextRecord`): a dict, or the
        :class:`~extractors.text_cache.TextCache` of :func:`~extractors.text_cache.read`, whose
        records are read from its files one at a time; read and updated in place (texts no
        longer in the corpus are dropped): texts found in it skip the tokenizer, the span
        model, the sentencizer and the patterns (incremental builds). Everything
        corpus-level (acronyms, concept registry, matching, resolution, propagation) is
        redone, so the result equals an extraction without a cache.
    cache_to : Path, optional
        With ``cache``: write the updated cache into this folder
        (:func:`~extractors.text_cache.write`) as soon as every text is extracted, reading
        the new records back from the texts' span file one at a time, and empty ``cache``
        (instead of holding every new record until the caller writes it).
    nested : {"modifier", "all", "none"}
        Lexicon terms inside a longer model term: keep those that are not its head
        ("deep RL" in "deep RL agents"), all, or none (SciERC never nests terms).
    propagate_terms : bool
        Match terms the model found in one paper in every other paper too.
    acceptance : TermAcceptance, optional
        The termhood filter between mentions found and concepts accepted into the graph
        (:mod:`extractors.acceptance`); ``None`` accepts every term found.
    rejected : Rejected, optional
        Receives the mentions and concepts found but not accepted (``kg extract`` lists
        them too).
    relation_model : RelationModel, bool or None
        The relation model (:mod:`extractors.relation_model`): ``True`` the installed one
        (if any), ``False``/``None`` none.
    relation_patterns : bool
        Add the relations of the pattern layer (:mod:`extractors.relation_patterns`).
    relations_on_disk : bool
        Leave the relations in the temporary file they go to as they are found: the graph's
        ``relations`` is then a :class:`~extractors.relation_file.Relations`, a sequence
        read off that file at each pass (in the same order), instead of a list. For a
        caller that only reads them through (a build's extraction process): they are not
        held in memory.
    papers_on_disk : bool
        Once every text is extracted, put each paper's title and abstract in a temporary
        file (:class:`~kg.core.paper_file.PaperFile`) and replace the paper, *in*
        ``papers`` *itself*, by the same paper reading them from there
        (:class:`~kg.core.paper_file.StoredPaper`); the graph's papers are those. For a
        caller that gives its list up (a build's extraction process): the texts are not
        held in memory through consolidation, the page and the spill file.

    Examples
    --------
    >>> from kg.core.model import Paper
    >>> kg = extract_corpus([Paper("p1", "", "Graph Neural Networks (GNNs) need calibration.")],
    ...                     span_model=False)
    >>> sorted((m.text, m.concept) for m in kg.mentions)
    [('Graph Neural Networks (GNNs)', 'graph-neural-network'), ('calibration', 'calibration')]
    """
    registry = build_registry(papers, lexicons)
    model_dir = span_model_dir() if span_model is True else (span_model or None)
    nlp = make_pipeline(registry, span_model=model_dir)
    texts = FieldTexts(papers)  # (each read from its paper when asked for)
    # before any worker is forked from this process: they share what it adds
    warm = frequent_chunks(texts.pieces)
    warm_tokenizer(nlp, warm)
    # what a text yields apart from the concept matcher depends on the text alone
    model_names = [n for n in ("tok2vec", "ner") if n in nlp.pipe_names]
    records = _KeptRecords({}, [])
    keys = CacheKeys()
    if cache is not None and model_names:
        fingerprint = model_fingerprint(model_dir) + pipeline_fingerprint()
        keys = CacheKeys(cache_digest(text, fingerprint) for text, _ in texts)
        records = _KeptRecords(cache, keys)
    if workers is None:
        workers = default_workers(len(texts), MULTIPROCESS_MIN_TEXTS)
    model = load_relation_model() if relation_model is True else \
        None if isinstance(relation_model, bool) else relation_model
    early = (model, relation_patterns) if model is not None and \
        _relations_with_extraction(model) else None
    spec = None
    if workers > 1 or scheduler is not None:
        spec = PipelineSpec(
            model_dir=str(model_dir) if model_dir else None,
            fingerprint=model_fingerprint(model_dir) + pipeline_fingerprint(),
            terms=nlp.get_pipe("kg_concept_matcher").to_bytes(), batch_size=batch_size,
            relations=early, warm=warm)
        # local workers forked from this process (where the platform allows) find it in
        # their cache
        _WORKER_PIPELINE[(spec.model_dir, spec.fingerprint)] = [nlp, spec.terms]
    try:
        with Workers(workers, scheduler, fork=len(texts) < FORK_MAX_TEXTS) as pool:
            return _extract_with(pool, papers, registry, nlp, spec if pool.parallel else None,
                                 texts, records, keys, cache, cache_to, progress=progress,
                                 batch_size=batch_size, nested=nested,
                                 propagate_terms=propagate_terms, acceptance=acceptance,
                                 rejected=rejected, relation_model=model,
                                 relation_patterns=relation_patterns, early=early,
                                 relations_on_disk=relations_on_disk,
                                 papers_on_disk=papers_on_disk)
    finally:
        _WORKER_PIPELINE.clear()


def _extract_with(workers: Workers, papers: list[Paper], registry: ConceptRegistry,
                  nlp: Language, spec: PipelineSpec | None, texts: FieldTexts,
                  records: _KeptRecords, keys: CacheKeys,
                  cache: MutableMapping[str, TextRecord] | None, cache_to: Path | None, *,
                  progress: bool, batch_size: int,
                  nested: str, propagate_terms: bool, acceptance: TermAcceptance | None,
                  rejected: Rejected | None, relation_model: RelationModel | None,
                  relation_patterns: bool, early: tuple[RelationModel, bool] | None,
                  relations_on_disk: bool, papers_on_disk: bool) -> KnowledgeGraph:
    """:func:`extract_corpus` once its pipeline is built and its workers are running;
    ``early``: relations found with the extraction (:func:`_relations_with_extraction`)."""
    # every text's spans go to a temporary file as they come, and consolidation's passes
    # read them back one text at a time: held here, they were the largest thing this
    # process kept per paper (~10 KB); so do the relations found with extraction (~8.5 KB
    # per paper), read back when the graph's are (a build's keep the file open)
    related = RelationFile(len(texts))
    with SpanFile(len(texts)) as spans:
        graph = _consolidate(workers, papers, registry, nlp, spec, texts, records, keys, cache,
                             cache_to, spans, related, progress=progress, batch_size=batch_size,
                             nested=nested, propagate_terms=propagate_terms,
                             acceptance=acceptance, rejected=rejected,
                             relation_model=relation_model, relation_patterns=relation_patterns,
                             early=early, papers_on_disk=papers_on_disk)
    if not relations_on_disk:
        graph.relations = list(graph.relations)  # a plain list, as graphs have
        related.close()
    return graph


def _consolidate(workers: Workers, papers: list[Paper], registry: ConceptRegistry,
                 nlp: Language, spec: PipelineSpec | None, texts: FieldTexts,
                 records: _KeptRecords, keys: CacheKeys,
                 cache: MutableMapping[str, TextRecord] | None, cache_to: Path | None,
                 spans: SpanFile, related: RelationFile, *, progress: bool,
                 batch_size: int, nested: str, propagate_terms: bool,
                 acceptance: TermAcceptance | None, rejected: Rejected | None,
                 relation_model: RelationModel | None, relation_patterns: bool,
                 early: tuple[RelationModel, bool] | None,
                 papers_on_disk: bool) -> KnowledgeGraph:
    """:func:`_extract_with`, the texts' spans kept in ``spans`` and their relations in
    ``related`` (those found with extraction as they come, the others once found)."""
    bar = None
    if progress:
        from tqdm import tqdm  # only for a progress bar: tqdm takes 40 ms to import

        bar = tqdm(total=len(texts), unit="text", desc="extracting", leave=False)
    stats = None
    # cache_to: the texts whose new records are read back from the span file (an index
    # each while extracting, not a key string and a dict entry: issue 17)
    stored = array("i")
    found_relations = None
    for i, ds, record, found_relations in _extract(workers, nlp, spec, texts, records,
                                                   batch_size, early, papers):
        if stats is None and workers.parallel:  # here, while the workers extract
            stats = CorpusStats.of(papers)
            return_free_pages()  # (the texts it read, and its counting's temporaries)
        if record is None and i not in records and not texts.where(i)[2]:
            record = spans_record(ds)  # a fresh text at offset 0 (_run_chunk)
        if keys and cache is not None and record is not None:
            if cache_to is not None and not texts.where(i)[2]:
                stored.append(i)  # the record is piece i's spans (spans_record)
            else:
                cache[keys[i]] = record
        spans.put(i, ds)
        if found_relations is not None:  # a whole field's, found with it (maybe none)
            related.put(i, found_relations)
        if bar is not None:
            bar.update()
    del found_relations  # the last text's: in the file, not to be held through consolidation
    if bar is not None:
        bar.close()
        print(f"kg: resolving terms across {len(papers)} papers", file=sys.stderr, flush=True)
    if keys and cache is not None:  # forget texts that are gone
        for k in [k for k in cache if k not in keys]:
            del cache[k]
    if cache is not None and cache_to is not None:
        text_cache.write(cache_to, _CacheRecords(cache, {keys[i]: i for i in stored}, spans))
        cache.clear()  # the kept records are not needed any more: only the spans are
        records.clear()
    # each field's pieces (a huge field comes in several, one after another), in columns
    ranges, fields = texts.whole_fields()
    # Read no more: where each text is (13 bytes a text) and each text's cache key
    texts.clear()
    keys.clear()
    if papers_on_disk:
        # every pass from here reads a paper's texts a paper at a time (~1.7 KB a paper
        # kept through consolidation, the page and the spill file, issue 17); in place: the
        # caller's list is the one that held them (papers read with their texts on disk,
        # kg.core.readers.read_corpus(papers_on_disk=True), are there already)
        paper_file = PaperFile()
        for n, p in enumerate(papers):
            if not isinstance(p, StoredPaper):
                papers[n] = paper_file.add(p)
    # What was just freed (the abstracts, each a block of the C heap: longer than Python's
    # own arenas take) glibc would keep, and consolidation's objects come from those
    # arenas, not from there: given back to the system
    return_free_pages()
    found = spans.texts(ranges, fields)
    # huge fields, or all
    later = [f for f, a in enumerate(ranges[:, 0].tolist()) if not related.has(a)]
    rest = found.subset(later)
    if not len(rest) and workers.scheduler is None:
        # Local workers each hold a pipeline and would build propagation's matchers again
        # (~0.4 GB each at 5,000 papers): ended here, propagation runs in this process
        workers.close()
    mentions, concepts = resolve_corpus(
        found, papers, registry, nlp.tokenizer, nested=nested,
        propagate_terms=propagate_terms, acceptance=acceptance, rejected=rejected,
        stats=CorpusStats.of(papers) if stats is None else stats, workers=workers,
        pipeline=spec.pipeline if spec else None)
    return_free_pages()  # (resolution's last temporaries)
    if len(rest):
        # few (huge fields; or every field when the relation model does not run with
        # extraction): grouped by field into the file, with the others
        by_field: dict[tuple[str, str], list[Relation]] = {fields[f]: [] for f in later}
        for r in corpus_relations(rest, papers, mentions, concepts, model=relation_model,
                                  patterns=relation_patterns, workers=workers):
            by_field[(r.paper, r.field)].append(r)
        for f in later:
            related.put(int(ranges[f, 0]), by_field.pop(fields[f]))
    # every field's relations, a field at a time in sorted_relations order (a text's
    # relations are put at its field's first piece)
    relations = related.relations(ranges[:, 0].tolist(), fields)
    return KnowledgeGraph(papers={p.id: p for p in papers}, mentions=mentions,
                          concepts=concepts, relations=relations)


class _KeptRecords(Mapping[int, TextRecord]):
    """The record ``cache`` keeps of each text (by its index in ``keys``), read from the cache
    when asked for (a build's :class:`~extractors.text_cache.TextCache` reads it from its
    files: the records of a whole corpus are not held at once)."""

    def __init__(self, cache: Mapping[str, TextRecord], keys: Sequence[str]) -> None:
        self._cache = cache
        self._keys = {i: k for i, k in enumerate(keys) if k in cache}

    def __getitem__(self, i: int) -> TextRecord:
        return self._cache[self._keys[i]]

    def __contains__(self, i: object) -> bool:
        return i in self._keys  # (without reading the record)

    def __iter__(self) -> Iterator[int]:
        return iter(self._keys)

    def __len__(self) -> int:
        return len(self._keys)

    def clear(self) -> None:
        """Forget which texts were kept (and let go of the cache)."""
        self._keys.clear()
        self._cache = {}


class _CacheRecords(Mapping[str, TextRecord]):
    """The records of an updated text cache: those ``kept`` in memory, and the new ones of
    texts at offset 0, read back from their spans in the span file (``stored``: key →
    piece) when asked for."""

    def __init__(self, kept: dict[str, TextRecord], stored: dict[str, int],
                 spans: SpanFile) -> None:
        self._kept, self._stored, self._spans = kept, stored, spans

    def __getitem__(self, key: str) -> TextRecord:
        if key in self._stored:
            # a record has no paper or field: none is given
            return spans_record(self._spans.get(self._stored[key], "", ""))
        return self._kept[key]

    def __iter__(self) -> Iterator[str]:
        yield from self._stored
        yield from (k for k in self._kept if k not in self._stored)

    def __len__(self) -> int:
        return len(self._stored) + sum(k not in self._stored for k in self._kept)


def corpus_relations(found: Sequence[DocSpans], papers: list[Paper], mentions: list[Mention],
                     concepts: dict[str, Concept], *, model: RelationModel | None = None,
                     patterns: bool = True, workers: Workers | None = None) -> list[Relation]:
    """The relations of every text (:func:`~extractors.relations.find_relations`), sorted.

    Arguments are the spans the relation model's argument model picks among its own
    candidates of each text (:mod:`extractors.relation_args`); without one, the text's
    span-model terms (Generic ones included) and the graph's mentions. The result depends
    on nothing else, so incremental builds equal full ones. With ``workers`` running a
    cluster, the texts are read there, a chunk per task (the model goes to each worker
    once).
    """
    by_id = {p.id: p for p in papers}
    by_field: dict[tuple[str, str], list[tuple[int, int, str]]] = {}
    for m in mentions:
        kind = concepts[m.concept].type if m.concept in concepts else "concept"
        by_field.setdefault((m.paper, m.field), []).append((m.start, m.end, kind))
    sent = sendable if workers is not None and workers.parallel else str
    tasks = ([(ds.paper, ds.field, sent(by_id[ds.paper].text(ds.field)), ds.sents, ds.model,
               by_field.get((ds.paper, ds.field), [])) for ds in found[k:k + WORKER_CHUNK]]
             for k in range(0, len(found), WORKER_CHUNK))
    parts = (workers or Workers()).map(_relations_task, (model, patterns), tasks,
                                       what="relation extraction")
    return sorted_relations(r for part in parts for r in part)


#: One relation task: ``(paper id, field, text, sentences, model spans, mentions)`` per text.
_RelationTask = list[tuple[str, str, str, list[tuple[int, int]], list[tuple[int, int, str]],
                           list[tuple[int, int, str]]]]


def _relations_task(shared: tuple[RelationModel | None, bool], task: _RelationTask,
                    ) -> list[Relation]:
    """The relations of a chunk of texts (here or in a worker process)."""
    model, patterns = shared
    return [r for paper, field, text, sents, spans, mentions in task
            for r in find_relations(paper, field, text, sents, spans, mentions, model=model,
                                    patterns=patterns)]
