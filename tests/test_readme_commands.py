"""The README's shell commands, run as written and in order, in a fresh folder.

Each ```` ```sh ```` block of ``README.md`` is split into commands (a here-document stays
with its command) and each runs with ``bash`` in a temporary folder holding the
repository's ``examples/``, with ``kg`` being this checkout. Three kinds of command
cannot run as written on a test machine, and are adapted, each in one visible way:

- ``pip install .`` and ``bash .ci/run`` install and test the checkout: the tests do not
  install it again (the rest of the set-up line runs);
- ``kg eval …`` needs ``../shared/data``: evaluation, tested in
  ``tests/test_extraction_quality.py``;
- servers: the foreground ``kg serve kg-out`` gets a free ``--port`` (7687 may be taken
  on a shared machine), runs until its ``kg cypher`` line has been pasted and answered,
  then gets Ctrl-C; ``kg push --uri bolt://localhost:7687 …`` and ``kg push-sparql
  --endpoint http://localhost:8890/…`` go to the test servers (ArcadeDB, Virtuoso).

The local server that ``kg cypher`` starts in the background is stopped at the end.
"""

from __future__ import annotations

import os
import re
import shlex
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from kg.core.processes import free_port
from tests.conftest import ROOT

README = ROOT / "README.md"


def readme_commands(text: str) -> list[str]:
    """The commands of every ```` ```sh ```` block, in order.

    Examples
    --------
    >>> readme_commands("```sh\\nkg a  # x\\ncat > q <<'EOF'\\nB\\nEOF\\n```\\n")
    ['kg a  # x', "cat > q <<'EOF'\\nB\\nEOF"]
    """
    commands = []
    for block in re.findall(r"^```sh\n(.*?)^```", text, re.S | re.M):
        lines = block.splitlines()
        i = 0
        while i < len(lines):
            command = lines[i]
            heredoc = re.search(r"<<-?\s*'?\"?(\w+)", command)
            if heredoc:
                while lines[i].strip() != heredoc.group(1):
                    i += 1
                    command += "\n" + lines[i]
            while command.endswith("\\"):
                i += 1
                command += "\n" + lines[i]
            if command.strip():
                commands.append(command)
            i += 1
    return commands


@pytest.fixture
def tour(tmp_path):
    """A fresh folder with ``examples/``, ``kg`` on the PATH being this checkout."""
    (tmp_path / "examples").symlink_to(ROOT / "examples")
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    shim = bin_dir / "kg"
    shim.write_text(f'#!/bin/sh\nexec {shlex.quote(sys.executable)} -m kg "$@"\n')
    shim.chmod(0o755)
    env = {k: v for k, v in os.environ.items() if not k.startswith("NEO4J_")}
    env.update(PATH=f"{bin_dir}:{env['PATH']}", PYTHONPATH=str(ROOT),
               KG_CACHE_DIR=str(tmp_path / "cache"))
    yield tmp_path, env
    subprocess.run([sys.executable, "-m", "kg", "serve", "kg-out", "--stop"], cwd=tmp_path,
                   env=env, capture_output=True, timeout=120)


def _foreground_serve(command: str, cwd: Path, env: dict) -> str | None:
    """Run ``kg serve kg-out`` until its pasted ``kg cypher`` line answers; then Ctrl-C."""
    port = free_port()
    proc = subprocess.Popen(["bash", "-c", f"{command} --port {port}"], cwd=cwd, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            start_new_session=True)
    try:
        serving, paste = proc.stdout.readline(), proc.stdout.readline()
        if not serving.startswith("serving kg-out at") or not paste.startswith("kg cypher"):
            proc.kill()
            return f"{serving}{paste}{proc.stderr.read()}"
        answer = subprocess.run(["bash", "-c", paste], cwd=cwd, env=env, capture_output=True,
                                text=True, timeout=300)
        if answer.returncode != 0 or "19" not in answer.stdout:
            return f"the pasted line failed: {answer.stdout}{answer.stderr}"
        os.killpg(proc.pid, signal.SIGINT)
        if proc.wait(timeout=120) != 0:
            return f"exit status {proc.returncode} after Ctrl-C: {proc.stderr.read()}"
        return None
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()


def test_readme_commands_run_as_written_in_order(tour, bolt, request):
    cwd, env = tour
    try:
        virtuoso = request.getfixturevalue("virtuoso")
    except pytest.skip.Exception:  # no SPARQL server here: that one command waits
        virtuoso = None
    commands = readme_commands(README.read_text(encoding="utf-8"))
    assert len(commands) > 25
    failures, ran, adapted = [], 0, []
    for command in commands:
        if command.startswith("bash .ci/run") or command.startswith("kg eval"):
            adapted.append(command)
            continue
        if command.startswith("pip install ."):
            command = command.split("&&", 1)[1].strip()
        if re.fullmatch(r"kg serve kg-out\s*(#.*)?", command):
            problem = _foreground_serve(command.split("#")[0].strip(), cwd, env)
            ran += 1
            if problem:
                failures.append(f"$ {command}\n{problem}")
            continue
        if command.startswith("kg push "):
            command = re.sub(r"--uri \S+ --user \S+ --password \S+",
                             shlex.join(bolt.cli_args()), command)
            adapted.append(command)
        if command.startswith("kg push-sparql "):
            if virtuoso is None:
                adapted.append(command)
                continue
            command = re.sub(r"--endpoint \S+", f"--endpoint {virtuoso.gsp_url}", command)
        proc = subprocess.run(["bash", "-c", command], cwd=cwd, env=env, capture_output=True,
                              text=True, timeout=600)
        ran += 1
        if proc.returncode != 0:
            failures.append(f"$ {command}\nexit status {proc.returncode}: {proc.stderr.strip()}")
    bolt.forget()  # the push replaced what the shared test database held
    assert not failures, "\n\n".join(failures)
    assert ran >= 25, (ran, adapted)
    for name in ("kg-out/graph.html", "concepts.html", "gnn.html", "bridge.html", "big.html",
                 "kg.graphml", "q.rq"):
        assert (cwd / name).exists(), name
