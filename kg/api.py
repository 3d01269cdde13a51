"""The Python API: build a graph, open it, ask it questions, convert it, draw it.

Everything here is also reachable as ``kg.NAME`` (``import kg``); ``docs/python.md``
is the guide. It is a thin layer over the toolkit: the questions are those of
:data:`queries.QUESTIONS` (the same names and engines as the ``kg`` commands), the
conversions are :func:`kg.stores.out.open_rdflib_graph`,
:func:`kg.stores.graph.to_networkx` and :func:`kg.stores.export.csv_rows`, and the pages are
the views of ``kg viz``.

Examples
--------
>>> g = build_graph([{"id": "p1", "title": "Graph neural networks for molecules",
...                   "abstract": "We apply graph neural networks (GNNs) to molecules."}],
...                 tmp / "out", page=False)  # doctest: +SKIP
>>> [r["id"] for r in g.papers_for_concept("GNN")]  # doctest: +SKIP
['p1']
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from kg.build import build
from kg.core.layout import MANIFEST
from kg.core.model import KnowledgeGraph, Paper
from kg.core.readers import read_records
from kg.stores.out import load_model, require_built
from queries import ENGINES, QUESTIONS, open_engine
from queries.engine import Engine
from visualizations.page import Page, render
from visualizations.views import VIEWS, make_view

if TYPE_CHECKING:  # both take a while to import; only their methods need them
    import networkx as nx
    import rdflib

__all__ = ["Graph", "Page", "build_graph", "open_graph"]


class Graph:
    """A built graph folder (``OUT``), asked through one engine.

    Parameters
    ----------
    out : str or Path
        A folder written by ``kg build`` or :func:`build_graph`.
    engine : {"sparql", "python", "cypher"}
        Which engine answers the questions (as ``kg --engine``); ``"cypher"`` uses
        ``$NEO4J_URI`` or starts the local Bolt server of ``out``.

    Notes
    -----
    Every question of :data:`queries.QUESTIONS` is a method with the same name and
    arguments as the function, without its first argument: ``g.papers_for_concept("GNNs")``
    is ``queries.papers_for_concept(engine, "GNNs")``. Lists of dicts go straight into
    ``pandas.DataFrame``.
    """

    def __init__(self, out: str | Path, *, engine: str = next(iter(ENGINES))) -> None:
        if engine not in ENGINES:
            raise ValueError(f"unknown engine {engine!r}; choose from {', '.join(ENGINES)}")
        self.out = Path(out)
        self.engine_name = engine
        require_built(self.out, MANIFEST)
        self._engine: Engine | None = None
        self._model: KnowledgeGraph | None = None

    def __repr__(self) -> str:
        return f"Graph({str(self.out)!r}, engine={self.engine_name!r})"

    @property
    def engine(self) -> Engine:
        """The engine, opened at the first question and kept."""
        if self._engine is None:
            self._engine = open_engine(self.engine_name, self.out)
        return self._engine

    @property
    def model(self) -> KnowledgeGraph:
        """The model of ``OUT/model.json``: papers, concepts, mentions."""
        if self._model is None:
            self._model = load_model(self.out)
        return self._model

    def ask(self, question: str, *args: Any, **kwargs: Any) -> Any:
        """Answer the question named ``question`` (a key of :data:`queries.QUESTIONS`)."""
        if question not in QUESTIONS:
            raise ValueError(f"unknown question {question!r}; choose from {', '.join(QUESTIONS)}")
        return QUESTIONS[question](self.engine, *args, **kwargs)

    def rdflib(self) -> rdflib.Graph:
        """The RDF graph (``graph.ttl``'s triples) as an :class:`rdflib.Graph` over the store."""
        from kg.stores.out import open_rdflib_graph

        return open_rdflib_graph(self.out)

    def networkx(self, *, links: bool = True, relations: bool = False) -> nx.DiGraph:
        """The paper–concept graph as a networkx ``DiGraph`` (:func:`kg.stores.graph.to_networkx`).

        ``links=False`` leaves out the paper–paper ``shares`` edges; ``relations=True`` gives
        a ``MultiDiGraph`` with the relations between concepts too (the GraphML export).
        """
        from kg.stores.graph import to_networkx

        return to_networkx(self.model, links=links, relations=relations)

    def rows(self) -> list[dict]:
        """One row per paper–concept link, as the CSV export (``pandas.DataFrame(g.rows())``)."""
        from kg.stores.export import csv_rows

        return csv_rows(self.out)

    def page(self, view: str = "graph", **options: Any) -> Page:
        """The page ``kg viz --view VIEW`` writes, for Jupyter or :meth:`Page.write`.

        ``view`` is one of ``graph``, ``concepts``, ``focus`` (``text=``, ``depth=``) or
        ``bridge`` (``topic_a=``, ``topic_b=``); other options as in
        :mod:`visualizations.views`.
        """
        if view not in VIEWS:
            raise ValueError(f"unknown view {view!r}; choose from {', '.join(VIEWS)}")
        made = make_view(self.model, view, **options)
        return Page(render(made), title=made.title)


def _question_method(name: str, function: Callable[..., Any]) -> Callable[..., Any]:
    """``Graph.NAME``: ``function`` asked of the graph's engine, with its signature."""

    def method(self: Graph, *args: Any, **kwargs: Any) -> Any:
        return function(self.engine, *args, **kwargs)

    signature = inspect.signature(function)
    params = list(signature.parameters.values())
    method.__signature__ = signature.replace(  # type: ignore[attr-defined]
        parameters=[inspect.Parameter("self", inspect.Parameter.POSITIONAL_OR_KEYWORD),
                    *params[1:]])
    method.__name__ = method.__qualname__ = name
    method.__qualname__ = f"Graph.{name}"
    method.__doc__ = (f"{(function.__doc__ or '').strip().splitlines()[0]}\n\n"
                      f"Same as :func:`queries.{name}` over this graph's engine.")
    return method


for _name, _function in QUESTIONS.items():
    setattr(Graph, _name, _question_method(_name, _function))


def open_graph(out: str | Path = "kg-out", *, engine: str = next(iter(ENGINES))) -> Graph:
    """Open the built folder ``out`` (see :class:`Graph`).

    Examples
    --------
    >>> open_graph("kg-out").stats()["papers"]  # doctest: +SKIP
    19
    """
    return Graph(out, engine=engine)


def build_graph(
    source: Iterable[str | Path] | Iterable[dict | Paper],
    out: str | Path = "kg-out",
    *,
    engine: str = next(iter(ENGINES)),
    **options: Any,
) -> Graph:
    """Build a graph into ``out`` and open it.

    Parameters
    ----------
    source : iterable of paths, or of records
        Corpus files (.txt, .jsonl, .csv) as for ``kg build``, or records in memory:
        dicts with the fields of a JSONL line (``abstract``, and optionally ``id``,
        ``title``, ``keywords``, ``venue``, ``year``, ``url``) or :class:`~kg.core.model.Paper`.
    out : str or Path
        The folder to write (replaced as a whole when the build succeeds).
    engine : str
        The engine of the returned :class:`Graph`.
    **options
        As :func:`kg.build.build`: ``lexicons``, ``on_error``, ``page``, ``incremental``,
        ``progress``.
    """
    items = list(source)
    records = [isinstance(x, (dict, Paper)) for x in items]
    if any(records) and not all(records):
        raise ValueError("pass either corpus files or records, not both")
    inputs: Any = items
    if any(records):
        inputs = read_records(items, on_error=options.get("on_error", "raise"))
    build(inputs, out, **options)
    return Graph(out, engine=engine)
