"""Which papers a question looks at: a year, a span of years, a venue.

Every question helper takes ``year=``, ``since=``, ``until=`` and ``venue=``
(keyword-only); :func:`paper_filter` turns them into a :class:`PaperFilter`,
and the shared code keeps only the papers it allows, from the ``(year,
venue)`` of every paper that the engine fetches once
(:meth:`queries.engine.Engine.paper_meta`). So the filters mean the same in
every engine. Papers without a year are left out by any year filter; without a
venue, by a venue filter. Venues compare ignoring case and surrounding space.
Statistics such as idf stay those of the whole graph.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from queries.engine import Engine

__all__ = ["PaperFilter", "paper_filter"]


@dataclass(frozen=True)
class PaperFilter:
    """A year, a span of years (both ends included) and a venue; ``None`` means any.

    Examples
    --------
    >>> f = PaperFilter(since=2024, venue="WWW")
    >>> f.allows(2025, "www"), f.allows(2023, "WWW"), f.allows(None, "WWW")
    (True, False, False)
    >>> f.describe()
    'papers since 2024 at WWW'
    """

    year: int | None = None
    since: int | None = None
    until: int | None = None
    venue: str | None = None

    @property
    def active(self) -> bool:
        """Whether it leaves any paper out at all."""
        return any(v is not None for v in (self.year, self.since, self.until, self.venue))

    def allows(self, year: int | None, venue: str | None) -> bool:
        """Whether a paper of ``year`` at ``venue`` is looked at."""
        years = (self.year, self.since, self.until)
        if any(v is not None for v in years):
            if year is None:
                return False
            if self.year is not None and year != self.year:
                return False
            if self.since is not None and year < self.since:
                return False
            if self.until is not None and year > self.until:
                return False
        return self.venue is None or (
            venue is not None and venue.strip().casefold() == self.venue.strip().casefold())

    def papers(self, engine: Engine) -> set[str] | None:
        """The ids of the papers it allows, or ``None`` when it allows every paper."""
        if not self.active:
            return None
        return {p for p, (y, v) in engine.paper_meta().items() if self.allows(y, v)}

    def describe(self) -> str:
        """How a note names it ("papers of 2025", "papers from 2018 to 2019 at NeurIPS")."""
        parts = []
        if self.year is not None:
            parts.append(f"of {self.year}")
        if self.since is not None and self.until is not None:
            parts.append(f"from {self.since} to {self.until}")
        elif self.since is not None:
            parts.append(f"since {self.since}")
        elif self.until is not None:
            parts.append(f"until {self.until}")
        if self.venue is not None:
            parts.append(f"at {self.venue.strip()}")
        return "papers " + " ".join(parts) if parts else "all papers"


def paper_filter(year: int | None = None, since: int | None = None, until: int | None = None,
                 venue: str | None = None) -> PaperFilter:
    """The filter of the keyword arguments every question helper takes.

    Examples
    --------
    >>> paper_filter(year=2025).active, paper_filter().active
    (True, False)
    """
    return PaperFilter(year, since, until, venue)
