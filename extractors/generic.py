"""Generic spans: words that refer to *some* method or result, not to a concept.

"our method", "this problem", "the model", "performance", "it" are found by
the span model (SciERC labels them ``Generic``) or by patterns, but they are not
ideas an expert would list for a paper. :func:`is_generic` decides, with a
stop-list and a few rules; :func:`concept_words` strips the determiners and
possessives that never belong to a concept's name.
"""

from __future__ import annotations

import re

__all__ = [
    "COMMON_SINGLE",
    "DETERMINERS",
    "GENERIC_HEADS",
    "LIGHT_MODIFIERS",
    "PRONOUNS",
    "concept_words",
    "is_generic",
    "word_set",
]


def word_set(text: str) -> frozenset[str]:
    """The whitespace-separated words of ``text``: word lists are written as one string.

    >>> sorted(word_set(" model  method model "))
    ['method', 'model']
    """
    return frozenset(text.split())


#: Leading words that are never part of a concept's name.
DETERMINERS = word_set("""
a an the this that these those our their its his her my your we us such each every any
both either neither some several many various other another same certain given whose which
all most more few no
""")

#: Pronouns: a span made of these is a reference, not a term.
PRONOUNS = word_set("""
it they them we us he she one ones itself themselves ourselves which that this these those
what who whom
""")

#: Head words that, with nothing specific before them, name no particular idea.
GENERIC_HEADS = word_set("""
method methods approach approaches model models system systems framework frameworks
algorithm algorithms technique techniques problem problems task tasks result results
work works paper papers study studies solution solutions procedure procedures scheme schemes
strategy strategies architecture architectures design designs tool tools way ways
performance performances experiment experiments evaluation evaluations analysis analyses
application applications setting settings issue issues question questions idea ideas
variant variants version versions extension extensions component components module modules
process processes step steps stage stages part parts aspect aspects property properties
feature features information knowledge data set sets number numbers amount amounts
value values function functions parameter parameters term terms case cases example examples
type types kind kinds form forms class classes level levels quality effect effects
improvement improvements advantage advantages benefit benefits limitation limitations
baseline baselines state art literature field area domain domains community researcher
researchers practitioner practitioners user users people thing things fact facts
challenge challenges goal goals objective objectives contribution contributions
technology technologies resource resources mechanism mechanisms structure structures
representation representations output outputs input inputs prediction predictions
accuracy efficiency effectiveness robustness scalability complexity cost costs time
theory theories insight insights observation observations finding findings evidence
point points fashion manner regime regimes behavior behaviour phenomenon phenomena
alternative alternatives counterpart counterparts technique implementation implementations
""")

#: Modifiers that do not make a generic head specific ("a novel method", "existing approaches").
LIGHT_MODIFIERS = word_set("""
novel new proposed existing previous prior current standard simple general different various
several same other first second third final overall efficient effective powerful popular
common typical traditional conventional classical classic modern recent state-of-the-art
strong weak good better best large small larger smaller high low higher lower key main
important significant substantial competitive superior comparable promising robust simple
unified generic specific particular whole entire alternative underlying original resulting
corresponding respective related similar above following aforementioned present current
single multiple many few additional further extensive experimental empirical theoretical
practical real real-world future past well-known widely used widely-used
""")

#: Single words too common in abstracts to be a concept on their own.
COMMON_SINGLE = GENERIC_HEADS | word_set("""
learning training test testing inference model network networks loss losses error errors
image images text texts word words sentence sentences document documents video videos
graph graphs node nodes edge edges label labels sample samples example instance instances
training-set dataset datasets benchmark benchmarks task tasks signal signals
language languages speech sound system agent agents environment environments policy
distribution distributions space spaces vector vectors matrix matrices layer layers
weights weight gradient gradients optimization objective constraint constraints
algorithm accuracy precision recall score scores metric metrics measure measures rate rates
size depth width length scale scales dimension dimensions order structure size
human humans world object objects scene scenes region regions pixel pixels frame frames
""")

_PUNCT_ONLY = re.compile(r"^[\W_]+$")


def concept_words(text: str) -> list[str]:
    """The words of a span without leading determiners and possessives.

    >>> concept_words("our novel graph model")
    ['novel', 'graph', 'model']
    >>> concept_words("the Transformer's")
    ["Transformer's"]
    """
    words = text.split()
    while words and words[0].lower() in DETERMINERS:
        words = words[1:]
    return words


def is_generic(text: str) -> bool:
    """True when a span names no particular idea.

    Parameters
    ----------
    text : str
        The span's text as found.

    Examples
    --------
    >>> [is_generic(t) for t in ["our method", "this problem", "performance", "it",
    ...                          "a novel approach", "the model", "graph contrastive learning",
    ...                          "accuracy", "CIFAR-10", "data"]]
    [True, True, True, True, True, True, False, True, False, True]
    """
    words = concept_words(text)
    if not words:
        return True
    low = [w.lower().strip(".,;:()\"'") for w in words]
    if all(not w or _PUNCT_ONLY.match(w) for w in low):
        return True
    if len(low) == 1:
        w = low[0]
        return w in PRONOUNS or w in COMMON_SINGLE or (len(w) <= 2 and not words[0].isupper())
    if all(w in PRONOUNS for w in low):
        return True
    # "a novel method", "existing approaches": only light modifiers before a generic head
    return low[-1] in GENERIC_HEADS and all(w in LIGHT_MODIFIERS for w in low[:-1])
