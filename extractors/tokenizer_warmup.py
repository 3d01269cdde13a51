"""A tokenizer warmed with a corpus's frequent words, for extraction in memory zones.

Extraction runs each task in a spaCy memory zone (:func:`extractors.pipeline.extract_corpus`),
so that a worker's vocabulary does not grow with the corpus. Inside a zone spaCy's tokenizer
saves nothing to its cache and every lexeme it makes is dropped when the zone ends: each
task cut every whitespace-separated chunk again with the prefix, suffix and infix rules, and
made every word's lexeme again (its ~20 lexical attributes, in Python). At 20,000 papers that
was ~48 CPU-s of the workers' ~430, three times what the same texts cost outside zones.

Chunks tokenized *outside* a zone stay in the vocabulary and the tokenizer's cache for good,
and a zone reads both. Warming the pipeline with the chunks seen more than once in a sample
of the corpus (a few thousand: a fixed number, not one per paper) gives the zones most of the
cache's benefit for a few megabytes. It changes no result: the cache and the lexemes hold
what the tokenizer would compute anyway.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator, Sequence

from spacy.language import Language

__all__ = ["SAMPLE_RUN", "SAMPLE_TEXTS", "WARM_CHUNKS", "frequent_chunks", "warm_tokenizer"]

#: Texts of the corpus whose chunks are counted, in runs spread evenly over it.
SAMPLE_TEXTS = 4000
#: Consecutive texts per run of the sample, at least. A paper's fields are consecutive
#: texts: evenly spaced single texts could all be titles (every tenth text of a corpus of
#: titles and abstracts is), and were: at 20,000 papers the titles' 3,739 chunks were
#: warmed, the runs' sample gives 16,583, and tokenizing 10,000 of its texts in 64-text
#: zones took 2.7 CPU-s instead of 4.4 (6.1 cold; bench/README.md).
SAMPLE_RUN = 50
#: The most chunks kept (those seen at least twice in the sample, most frequent first).
WARM_CHUNKS = 20_000
#: Chunks tokenized per call while warming (one ``Doc`` of a few thousand tokens at a time).
_PER_DOC = 5000


def frequent_chunks(texts: Sequence[str], *, sample: int | None = None,
                    limit: int | None = None) -> tuple[str, ...]:
    """The whitespace-separated chunks seen more than once in ``sample`` texts of
    ``texts``, most frequent first (at most ``limit``).

    The sample is runs of consecutive texts (:data:`SAMPLE_RUN` or more each) spread evenly
    over ``texts``, so that it holds every field of the papers it reaches; all of ``texts``
    when they are no more than ``sample``.

    Parameters
    ----------
    texts : sequence of str
        The corpus's texts, in their order.
    sample : int, optional
        How many texts to count the chunks of (default :data:`SAMPLE_TEXTS`).
    limit : int, optional
        The most chunks returned (default :data:`WARM_CHUNKS`).

    Returns
    -------
    tuple of str
        Chunks as the tokenizer sees them (with their punctuation: ``"model,"``); a tie
        keeps the order the chunks were first seen in.

    Examples
    --------
    >>> frequent_chunks(["Graph neural networks.", "Neural networks, graph neural networks."])
    ('neural', 'networks.')
    >>> frequent_chunks(["a b", "a c", "b d"], limit=1)
    ('a',)
    """
    sample = SAMPLE_TEXTS if sample is None else sample
    if sample <= 0 or not texts:
        return ()
    counts = Counter(chunk for k in _sampled(len(texts), sample) for chunk in texts[k].split())
    return tuple(chunk for chunk, n in counts.most_common(WARM_CHUNKS if limit is None
                                                          else limit) if n > 1)


def _sampled(n: int, sample: int) -> Iterator[int]:
    """Indices of ``sample`` texts of ``n`` (all if ``n <= sample``): ``sample //
    SAMPLE_RUN`` runs of consecutive ones (one run if that is none), evenly spaced.

    >>> list(_sampled(10, 4)), list(_sampled(3, 4))
    ([0, 1, 2, 3], [0, 1, 2])
    >>> runs = list(_sampled(1000, 100))  # two runs of 50, at 0 and 500
    >>> runs[:2], runs[48:52], len(runs)
    ([0, 1], [48, 49, 500, 501], 100)
    """
    if n <= sample:
        yield from range(n)
        return
    runs = max(1, sample // SAMPLE_RUN)
    length = sample // runs
    # runs k and k + 1 start n // runs or more apart, at least a run's length (n > sample):
    # they do not overlap
    for k in range(runs):
        start = n * k // runs
        yield from range(start, start + length)


def warm_tokenizer(nlp: Language, chunks: Sequence[str]) -> None:
    """Tokenize ``chunks`` outside any memory zone, so that their lexemes and their cached
    cuts stay in ``nlp`` for the memory zones that follow.

    The tokenizer's cache is raised to hold them besides what it held.

    Parameters
    ----------
    nlp : Language
        The pipeline; not in a memory zone.
    chunks : sequence of str
        Whitespace-free strings (:func:`frequent_chunks`).

    Examples
    --------
    >>> import spacy
    >>> nlp = spacy.blank("en")
    >>> warm_tokenizer(nlp, ["networks,", "GNNs"])
    >>> "networks" in nlp.vocab.strings, nlp.tokenizer.max_cache_size >= 10_002
    (True, True)
    """
    if nlp.vocab.in_memory_zone:
        raise RuntimeError("warm_tokenizer: the pipeline is in a memory zone, "
                           "where nothing it tokenizes would stay")
    tokenizer = nlp.tokenizer
    tokenizer.max_cache_size += len(chunks)
    for k in range(0, len(chunks), _PER_DOC):
        tokenizer(" ".join(chunks[k:k + _PER_DOC]))
