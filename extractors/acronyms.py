"""Acronym definitions in text: "Graph Neural Networks (GNNs)" → ("GNN", "Graph Neural Networks").

An implementation of Schwartz & Hearst (2003), "A simple algorithm for
identifying abbreviation definitions in biomedical text", with changes for
ML prose: a plural ``s`` on the short form is allowed, and inner capitals of
the short form may start a word part ("MinHash (MH)"). Two kinds of parentheses are
not definitions: one a word continues ("Instruction (In)Stability"), and a short form
of one or two letters that is a common English word (:func:`common_word`).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from functools import lru_cache

from wordfreq import zipf_frequency

from kg.core.text import acronym_key

__all__ = ["AcronymDefinition", "COMMON_CAPS_ZIPF", "COMMON_WORD_ZIPF", "common_word",
           "find_definitions"]

#: A one- or two-letter short form this frequent in general English (``wordfreq`` Zipf
#: frequency) is a word, not an acronym: "In" (7.3), "Re"; written in capitals it takes
#: a function word (:data:`COMMON_CAPS_ZIPF`: "IN", "IT", "ON") — "RE" (relation
#: extraction, 5.2), "AI" (4.2), "ML" (3.8) stay acronyms.
COMMON_WORD_ZIPF = 5.0
COMMON_CAPS_ZIPF = 6.0

# "(SF)" or "(SF;" / "(SF," : a short form of 2-10 characters with a capital letter.
_PAREN = re.compile(r"\(\s*([A-Za-z][A-Za-z0-9\-\.&]{1,11}?)\s*[);,]")
_WORD = re.compile(r"[^\s]+")
_STOP_BEFORE = {"the", "a", "an", "our", "their", "its", "this", "these", "we", "of"}


@dataclass(frozen=True)
class AcronymDefinition:
    """A short form defined by a long form, with character offsets of both."""

    short: str
    long: str
    short_start: int
    short_end: int
    long_start: int
    long_end: int


@lru_cache(maxsize=4096)
def common_word(form: str) -> bool:
    """Whether a one- or two-letter short form is a common English word.

    >>> common_word("In"), common_word("IT"), common_word("AI"), common_word("RE")
    (True, True, False, False)
    """
    if len(form) > 2:
        return False
    return zipf_frequency(form.lower(), "en") >= (COMMON_CAPS_ZIPF if form.isupper()
                                                  else COMMON_WORD_ZIPF)


def _valid_short(sf: str) -> bool:
    core = acronym_key(sf)
    return (
        2 <= len(core) <= 10
        and sum(c.isupper() for c in core) >= max(1, len(core) // 2)
        and core[0].isalnum()
        and not core.isdigit()
        and not common_word(core)
    )


def _match_long(sf: str, words: list[re.Match]) -> int | None:
    """Index of the first word of the long form, matching ``sf`` right to left."""
    letters = [c.lower() for c in acronym_key(sf) if c.isalnum()]
    text = " ".join(w.group().lower() for w in words)
    # Schwartz-Hearst: walk the candidate from the right, each short-form
    # character must appear, the first one at the start of a word.
    si, li = len(letters) - 1, len(text) - 1
    while si >= 0:
        c = letters[si]
        while li >= 0 and (
            text[li] != c or (si == 0 and li > 0 and text[li - 1].isalnum())
        ):
            li -= 1
        if li < 0:
            return None
        si -= 1
        li -= 1
    start_char = text.rfind(" ", 0, li + 1) + 1
    return text[:start_char].count(" ")


def _last_words(text: str, end: int, n: int) -> list[re.Match]:
    """The last ``n`` words of ``text[:end]`` (offsets into ``text``).

    Read backwards from ``end`` in a growing window: splitting the whole prefix for each
    definition made a long text quadratic (a 500,000-character abstract: 24 s).
    """
    while end > 0 and text[end - 1].isspace():
        end -= 1
    lo = max(0, end - 256)
    while True:
        words = list(_WORD.finditer(text, lo, end))
        if len(words) > n or lo == 0:  # the first may be cut: more than n are enough
            return words[-n:]
        lo = max(0, end - 2 * (end - lo))


def find_definitions(text: str) -> Iterator[AcronymDefinition]:
    """Yield acronym definitions of the form ``long form (SF)`` in ``text``.

    Examples
    --------
    >>> d = next(find_definitions("Graph Neural Networks (GNNs) are popular."))
    >>> d.short, d.long
    ('GNN', 'Graph Neural Networks')
    >>> [x.short for x in find_definitions("successor-guided uncertainty reduction (SURE), which")]
    ['SURE']
    >>> list(find_definitions("Instruction (In)Stability of LLMs"))
    []
    """
    for m in _PAREN.finditer(text):
        sf = m.group(1).rstrip(".-")
        if not _valid_short(sf) or text[m.end():m.end() + 1].isalnum():
            continue  # "(In)Stability": a word goes on after the parenthesis
        n_letters = len(acronym_key(sf))
        window = min(n_letters + 5, n_letters * 2)
        words = _last_words(text, m.start(), window)
        # a long form never spans a sentence or clause boundary
        for i in range(len(words) - 1, -1, -1):
            if words[i].group().endswith((".", ";", ":", ",")) and i != len(words) - 1:
                words = words[i + 1:]
                break
        # hyphenated words count as several words for letter matching
        first = _match_long(sf, words)
        if first is None:
            continue
        while first < len(words) - 1 and words[first].group().lower() in _STOP_BEFORE:
            first += 1
        long_start = words[first].start()
        long_end = words[-1].end()
        long = text[long_start:long_end].strip(" \"'`*_")
        long_start = text.index(long, long_start)
        long_end = long_start + len(long)
        if len(long) <= len(sf) or long.lower() == sf.lower():
            continue
        s_start = m.start(1)
        yield AcronymDefinition(acronym_key(sf), long, s_start, s_start + len(sf),
                                long_start, long_end)
