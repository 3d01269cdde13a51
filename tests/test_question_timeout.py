"""Every question command stops at ``--timeout`` as ``kg sparql`` and ``kg cypher`` do: one
line, exit status 2 (``--timeout 0``: no limit, the default 60 s)."""

from __future__ import annotations

import pytest
from click.testing import CliRunner

from kg.cli import cli
from tests.conftest import paper_id

#: every command that asks a question (they all have --engine), with arguments it answers
QUESTIONS = {
    "papers": ["--concept", "GNNs"], "concepts": [], "paper": [paper_id(3)],
    "trends": [], "related": [paper_id(3)], "cooccur": ["GNNs"],
    "path": ["calibration", "LLMs"], "stats": [], "bridge": ["GNNs", "uncertainty"],
    "relations": ["graph neural network"], "methods": ["node classification"],
    "evaluations": ["graph neural network"],
}


def _options(name: str) -> set[str]:
    return {o for p in cli.commands[name].params for o in getattr(p, "opts", [])}


def test_every_question_command_is_here_and_has_timeout():
    asking = {name for name in cli.commands if "--engine" in _options(name)}
    assert asking == set(QUESTIONS)
    for name in asking:
        timeout = next(p for p in cli.commands[name].params if "--timeout" in p.opts)
        assert timeout.default == 60.0, name


@pytest.mark.parametrize("name", sorted(QUESTIONS))
def test_a_question_past_its_timeout_is_one_line_and_exit_2(example_out, name):
    # a millionth of a second: no question is answered that fast (the engine is opened first,
    # outside the limit, so this times the question itself; an answer that comes after the
    # limit is not shown either)
    r = CliRunner().invoke(cli, [name, str(example_out), *QUESTIONS[name],
                                 "--timeout", "0.000001"])
    assert r.exit_code == 2, r.output
    assert r.stdout == ""
    assert r.stderr.splitlines() == [
        "kg: error: the question did not finish within 1e-06 s (raise --timeout, or 0 for no "
        "limit)"], r.stderr


@pytest.mark.parametrize("timeout", ["0", "30"])
def test_within_the_timeout_or_without_one_the_answer_is_the_same(example_out, timeout):
    default = CliRunner().invoke(cli, ["relations", str(example_out), "graph neural network",
                                       "--format", "csv"])
    r = CliRunner().invoke(cli, ["relations", str(example_out), "graph neural network",
                                 "--format", "csv", "--timeout", timeout])
    assert default.exit_code == 0 and r.exit_code == 0, r.output
    assert r.stdout == default.stdout and "graph neural network" in r.stdout
