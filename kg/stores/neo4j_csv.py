"""``kg export --format neo4j-csv``: files that ``neo4j-admin database import full`` loads.

The folder gets one CSV file per node label and relationship type, with the headers
``neo4j-admin`` reads (``id:ID(Paper)``, ``:LABEL``, ``:START_ID(Paper)``, ``:END_ID(Concept)``,
``:TYPE``, typed properties such as ``year:int`` and arrays such as ``aliases:string[]``), and
``import.sh`` with the command. The nodes, relationships and properties are those that
``kg push`` writes (:mod:`kg.stores.bolt`, ``docs/property-graph.md``), so the Cypher engine
answers from an imported database as from a pushed one.

Array elements are separated by U+001F (the ASCII unit separator, ``--array-delimiter=U+001F``),
which no title, label or sentence contains; abstracts may hold line breaks
(``--multiline-fields=true``). Absent values are empty cells (no property).
"""

from __future__ import annotations

import csv
import shlex
from pathlib import Path

from kg.core.errors import Messages, OutputError
from kg.core.files import atomic_write
from kg.core.model import KnowledgeGraph
from kg.stores.bolt import (
    RELATIONSHIP_TYPES,
    broader_rows,
    concept_rows,
    mention_rows,
    paper_rows,
    relation_rows,
)

__all__ = ["ARRAY_DELIMITER", "FILES", "import_command", "write_neo4j_csv"]

ARRAY_DELIMITER = "\x1f"
#: file name -> what it holds (``--nodes`` or ``--relationships``), in import order
FILES = {"papers.csv": "nodes", "concepts.csv": "nodes", "mentions.csv": "relationships",
         "broader.csv": "relationships", "relations.csv": "relationships"}
_SCRIPT = "import.sh"


#: the neo4j-admin type of each property that is not a string
_TYPES = {"year": "int", "papers": "int", "idf": "double", "aliases": "string[]",
          "hidden": "string[]", "keywords": "string[]"}


def _cell(value: object, node: str, name: str) -> object:
    if value is None:
        return None
    if isinstance(value, list):
        for item in value:
            if ARRAY_DELIMITER in str(item):
                raise OutputError(Messages.ARRAY_DELIMITER_IN_VALUE.format(
                    what=name, node=node, delimiter="U+001F"))
        return ARRAY_DELIMITER.join(str(v) for v in value)
    if isinstance(value, float):
        return repr(value)
    return value


def _node_table(label: str, rows: list[dict]) -> tuple[list[str], list[list]]:
    names = sorted({k for r in rows for k in r["props"]})
    header = [f"id:ID({label})"] + [f"{n}:{_TYPES.get(n, 'string')}" for n in names] + [":LABEL"]
    body = [[r["id"], *(_cell(r["props"].get(n), r["id"], n) for n in names), label]
            for r in rows]
    return header, body


def write_neo4j_csv(kg: KnowledgeGraph, folder: str | Path) -> list[Path]:
    """Write the node and relationship files and ``import.sh`` into ``folder``.

    Returns the files written. The folder is created; files of an earlier export are
    replaced.

    Examples
    --------
    >>> from kg.core.model import Concept, KnowledgeGraph
    >>> import tempfile
    >>> folder = Path(tempfile.mkdtemp())
    >>> kg = KnowledgeGraph(concepts={"gnn": Concept("gnn", "graph neural network",
    ...                                              aliases=["GNN", "GNNs"])})
    >>> [p.name for p in write_neo4j_csv(kg, folder)]
    ['papers.csv', 'concepts.csv', 'mentions.csv', 'broader.csv', 'relations.csv', 'import.sh']
    >>> (folder / "concepts.csv").read_text().splitlines()[0]
    'id:ID(Concept),aliases:string[],definition:string,hidden:string[],idf:double,label:string,\
origin:string,papers:int,type:string,:LABEL'
    """
    folder = Path(folder)
    if folder.exists() and not folder.is_dir():
        raise OutputError(Messages.EXPORT_DIR_IS_FILE.format(path=folder, fmt="neo4j-csv"))
    folder.mkdir(parents=True, exist_ok=True)
    mentions = mention_rows(kg)
    tables = {
        "papers.csv": _node_table("Paper", paper_rows(kg)),
        "concepts.csv": _node_table("Concept", concept_rows(kg)),
        "mentions.csv": (
            [":START_ID(Paper)", ":END_ID(Concept)", "count:int", "title:int",
             "evidence:string[]", "first:int", "salience:double", "about:boolean", ":TYPE"],
            [[m["paper"], m["concept"], m["count"], m["title"],
              _cell(m["evidence"], f"{m['paper']}->{m['concept']}", "evidence"), m["first"],
              m["salience"], "true" if m["about"] else "false", "MENTIONS"]
             for m in mentions]),
        "broader.csv": ([":START_ID(Concept)", ":END_ID(Concept)", ":TYPE"],
                        [[b["narrower"], b["broader"], "BROADER"] for b in broader_rows(kg)]),
        # relations between concepts, typed as kg push writes them (USED_FOR …)
        "relations.csv": (
            [":START_ID(Concept)", ":END_ID(Concept)", "count:int", "papers:string[]",
             "evidence:string[]", ":TYPE"],
            [[r["head"], r["tail"], r["count"],
              _cell(r["papers"], f"{r['head']}->{r['tail']}", "papers"),
              _cell(r["evidence"], f"{r['head']}->{r['tail']}", "evidence"),
              RELATIONSHIP_TYPES[t]]
             for t, rows in relation_rows(kg).items() for r in rows]),
    }
    written = []
    for name in FILES:
        header, body = tables[name]
        path = folder / name
        with atomic_write(path, text=True) as f:  # a failed export keeps the earlier file
            w = csv.writer(f, lineterminator="\n")
            w.writerow(header)
            w.writerows(body)
        written.append(path)
    script = folder / _SCRIPT
    command = import_command(None, database="${1:-neo4j}")
    with atomic_write(script, text=True) as f:
        f.write("#!/bin/sh\n"
                "# Load these files into a new Neo4j 5 database (the server must be stopped):\n"
                "#   sh import.sh [DATABASE]      (default: neo4j)\n"
                'cd "$(dirname "$0")" || exit 1\n'
                f"exec {command}\n")
    script.chmod(0o755)
    written.append(script)
    return written


def import_command(folder: str | Path | None, *, database: str = "neo4j") -> str:
    """The ``neo4j-admin`` command that imports the files of ``folder`` (``None``: relative).

    Examples
    --------
    >>> print(import_command("/data/kg-neo4j"))  # doctest: +NORMALIZE_WHITESPACE
    neo4j-admin database import full --nodes=/data/kg-neo4j/papers.csv
    --nodes=/data/kg-neo4j/concepts.csv --relationships=/data/kg-neo4j/mentions.csv
    --relationships=/data/kg-neo4j/broader.csv --relationships=/data/kg-neo4j/relations.csv
    --array-delimiter=U+001F --multiline-fields=true neo4j
    """
    def where(name: str) -> str:
        return name if folder is None else str(Path(folder) / name)

    files = [f"--{kind}={shlex.quote(where(name))}" for name, kind in FILES.items()]
    db = f'"{database}"' if database.startswith("${") else shlex.quote(database)
    return " ".join(["neo4j-admin database import full", *files,
                     "--array-delimiter=U+001F", "--multiline-fields=true", db])
