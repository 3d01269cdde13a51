"""Mask LaTeX, HTML and Markdown noise without moving a single character.

Abstracts scraped from arXiv or OpenReview carry ``$\\epsilon$``, ``\\cite{x}``,
``\\emph{word}``, ``&amp;``, ``<b>`` and ``**bold**``. Extraction runs on a
*masked* copy in which noise is overwritten with spaces (and entities with the
character they stand for, padded with spaces), so every offset found in the
masked text indexes the original field exactly: ``field[start:end]`` is always
the mention's text.
"""

from __future__ import annotations

import html
import re

__all__ = ["mask_markup"]

# Whole constructs that carry no terms: inline/display math, citations, references, URLs.
_DROP = re.compile(
    r"\$\$.+?\$\$"                                   # display math
    r"|(?<!\\)\$[^$\n]{1,200}?(?<!\\)\$"             # inline math
    r"|\\(?:cite[a-z]*|ref|eqref|label|url|footnote)\*?(?:\[[^\]]*\])?\{[^{}]*\}"
    r"|https?://\S+"
    r"|</?[A-Za-z][A-Za-z0-9]*(?:\s[^<>]*)?/?>",     # HTML tags
    re.S,
)
# Formatting commands whose argument is text: keep the argument, blank the wrapper.
_WRAP = re.compile(
    r"\\(?:emph|textbf|textit|texttt|textsc|mathrm|mathbf|text|underline)\{([^{}]*)\}")
_ENTITY = re.compile(r"&(?:#\d{1,6}|#x[0-9A-Fa-f]{1,6}|[A-Za-z][A-Za-z0-9]{1,31});")
_MD_LINK = re.compile(r"\[([^\[\]\n]+)\]\([^()\s]+\)")
_MD_EMPH = re.compile(r"(\*\*|__|\*|`)(?=\S)([^*`\n]+?)(?<=\S)\1")
_COMMAND = re.compile(r"\\[A-Za-z]+\*?")  # any other LaTeX command name: blank the name only
_CHEAP = re.compile(r"[$\\<&*`\[_]")


def _blank(m: re.Match) -> str:
    return " " * (m.end() - m.start())


def _keep_group(group: int):
    def sub(m: re.Match) -> str:
        s, e = m.span(group)
        return " " * (s - m.start()) + m.group(group) + " " * (m.end() - e)
    return sub


def _entity(m: re.Match) -> str:
    ch = html.unescape(m.group())
    if len(ch) != 1 or ch == m.group():
        return _blank(m)
    return (" " if ch.isspace() else ch) + " " * (len(m.group()) - 1)


def _blank_comments(text: str) -> str:
    """``text`` with HTML comments blanked, in one pass.

    Not a regex: ``<!--.*?-->`` scans to the end of the text from every ``<!--`` that is
    never closed, which made a text of them quadratic (100,000 characters: 40 s).
    """
    parts, pos = [], 0
    while (start := text.find("<!--", pos)) >= 0:
        end = text.find("-->", start + 4)
        if end < 0:  # no comment closes after this one either
            break
        parts += [text[pos:start], " " * (end + 3 - start)]
        pos = end + 3
    return "".join(parts) + text[pos:] if parts else text


def mask_markup(text: str) -> str:
    """A copy of ``text`` with markup blanked out, of exactly the same length.

    Parameters
    ----------
    text : str
        A title or abstract as read.

    Returns
    -------
    str
        The masked text; ``len(result) == len(text)`` and every character that
        is not markup is unchanged.

    Examples
    --------
    >>> mask_markup(r"We bound $\\epsilon$ in \\emph{deep nets} \\cite{x}.")
    'We bound            in       deep nets          .'
    >>> mask_markup("R&amp;D on <b>GANs</b> and **VAEs**")
    'R&    D on    GANs     and   VAEs  '
    """
    if not _CHEAP.search(text):
        return text
    out = _DROP.sub(_blank, _blank_comments(text))
    for _ in range(3):  # nested wrappers: \\emph{\\textbf{x}}
        new = _WRAP.sub(_keep_group(1), out)
        if new == out:
            break
        out = new
    out = _COMMAND.sub(_blank, out)
    out = _ENTITY.sub(_entity, out)
    out = _MD_LINK.sub(_keep_group(1), out)
    out = _MD_EMPH.sub(_keep_group(2), out)
    return out
