"""A real Bolt server for the tests (importable: ``from tests.servers_bolt import …``).

By default the fixture starts the local ArcadeDB server of :mod:`kg.stores.bolt_server`
on free 127.0.0.1 ports, once per test session, and stops it by its process id
at the end. When ``NEO4J_URI`` is set (with ``NEO4J_USER``, ``NEO4J_PASSWORD``,
``NEO4J_DATABASE``), the same tests run against that server instead, e.g. a
real Neo4j 5: its ``Paper`` and ``Concept`` nodes are replaced by the tests.

One database is shared by every test, so tests that need a given graph ask
:class:`BoltFixture` to :meth:`~BoltFixture.load` it: it is pushed (replacing
what was there) only when it is not the graph loaded last.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field

import pytest


@dataclass
class BoltFixture:
    """Where the test server is, and which graph it holds now."""

    uri: str
    user: str
    password: str
    database: str | None
    #: the server started for the session (None when NEO4J_URI points elsewhere)
    server: object | None = None
    _loaded: object | None = field(default=None, repr=False)
    _graph: object | None = field(default=None, repr=False)

    def connect(self):
        """A fresh :class:`kg.stores.bolt.BoltGraph` on the test database (close it)."""
        from kg.stores.bolt import connect

        return connect(self.uri, user=self.user, password=self.password,
                       database=self.database)

    @property
    def graph(self):
        """A shared :class:`kg.stores.bolt.BoltGraph` (closed at the end of the session)."""
        if self._graph is None:
            self._graph = self.connect()
        return self._graph

    def cli_args(self) -> list[str]:
        """``--uri … --user … --password … [--database …]`` for ``kg`` commands."""
        args = ["--uri", self.uri, "--user", self.user, "--password", self.password]
        return args + (["--database", self.database] if self.database else [])

    def load(self, kg) -> object:
        """Make the server hold exactly ``kg`` (a :class:`~kg.core.model.KnowledgeGraph`)."""
        from kg.stores.bolt import push

        if self._loaded is not kg:
            push(kg, self.graph, replace=True)
            self.graph.cache.clear()
            self._loaded = kg
        return self.graph

    def forget(self) -> None:
        """Say the database was changed behind our back (the next :meth:`load` pushes)."""
        self._loaded = None
        if self._graph is not None:
            self._graph.cache.clear()


@pytest.fixture(scope="session")
def bolt(tmp_path_factory):
    """The session's Bolt server (ArcadeDB started here, or ``NEO4J_URI``)."""
    if os.environ.get("NEO4J_URI"):
        fx = BoltFixture(os.environ["NEO4J_URI"], os.environ.get("NEO4J_USER", "neo4j"),
                         os.environ.get("NEO4J_PASSWORD", ""),
                         os.environ.get("NEO4J_DATABASE") or None)
        yield fx
        if fx._graph is not None:
            fx._graph.close()
        return
    from kg.stores.bolt_server import start_server, stop_server

    server = start_server(tmp_path_factory.mktemp("arcadedb"), heap="512m")
    fx = BoltFixture(server.uri, server.user, server.password, server.database, server=server)
    try:
        yield fx
    finally:
        if fx._graph is not None:
            fx._graph.close()
        stop_server(server)


@pytest.fixture
def bolt_example(bolt, example_kg):
    """A :class:`kg.stores.bolt.BoltGraph` holding the example corpus."""
    return bolt.load(example_kg)
