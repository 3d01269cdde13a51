"""The pattern layer of relation extraction: explicit forms between two adjacent spans.

Each rule reads the words between two candidate spans of one sentence (lower case,
tokens joined by single spaces) and, for a few forms, the word before the first span.
The forms and their directions are the frequent ones of SciERC's training set
("X for Y": X used-for Y; "X based on Y": Y used-for X; "X such as Y": Y hyponym-of X;
"X and Y": conjunction; "X outperforms Y": compare; "evaluate X on Y": Y evaluate-for X).

Examples
--------
>>> match_between("such as")
('hyponym-of', True)
>>> match_between("for the")
('used-for', False)
>>> match_between("on", before="evaluate")
('evaluate-for', True)
>>> match_between("is trained on") is None
True
"""

from __future__ import annotations

__all__ = ["BETWEEN_RULES", "EVALUATE_VERBS", "match_between"]

#: words between "X" and "Y" -> (type, reversed): reversed means the relation is "Y type X".
BETWEEN_RULES: dict[str, tuple[str, bool]] = {
    **{w: ("conjunction", False) for w in (
        "and", "or", ", and", ", or", "and the", "and a", "as well as", "and other")},
    **{w: ("used-for", False) for w in (
        "for", "for the", "for a", "used for", "is used for", "are used for", "used to",
        "applied to", "is applied to", "to solve", "for solving", "to improve", "to address")},
    **{w: ("used-for", True) for w in (
        "based on", "is based on", "are based on", "using", "by using", "uses", "uses a",
        "use", "with the help of", "by means of", "relies on", "exploits", "employs",
        "built on", "via", "through", "by", "from")},
    **{w: ("hyponym-of", True) for w in (
        "such as", ", such as", "like", ", like", "including", ", including", ", e.g.",
        "e.g.", "( e.g.", ", especially", "especially")},
    **{w: ("hyponym-of", False) for w in (
        "is a", "is an", ", a", ", an", "as a", "is a kind of", "is a type of",
        "a kind of", "a type of", "and other")},
    **{w: ("compare", False) for w in (
        "outperforms", "outperform", "outperforms the", "outperformed", "compared to",
        "compared with", "is compared with", "is compared to", "versus", "vs.", "vs",
        "over", "than", "better than", "against", "is superior to", "beats")},
    **{w: ("part-of", False) for w in ("in the", "within")},
    **{w: ("feature-of", False) for w in ("of the",)},
}
# "X and other Y" is Y's kind, not a conjunction
BETWEEN_RULES["and other"] = ("hyponym-of", False)

#: verbs before the first span of "evaluate X on Y" (Y evaluate-for X)
EVALUATE_VERBS = frozenset({
    "evaluate", "evaluated", "evaluates", "evaluating", "test", "tested", "tests", "testing",
    "validate", "validated", "benchmark", "benchmarked", "assess", "assessed",
})


def match_between(between: str, before: str = "") -> tuple[str, bool] | None:
    """The relation stated by ``between`` (the words between two spans), or ``None``.

    ``before`` is the lower-case word before the first span; returns ``(type, reversed)``
    where ``reversed`` says the second span is the relation's head.
    """
    if before in EVALUATE_VERBS and between in ("on", "on the", "on a", "against", "with"):
        return ("evaluate-for", True)
    return BETWEEN_RULES.get(between)
