"""The span model multiplies matrices with NumPy's BLAS, one thread while a build extracts.

BLIS (thinc's default) runs its generic reference kernel on processors it does not know,
several times slower than NumPy's OpenBLAS (bench/README.md); and a product's last bits
depend on how many threads share it, so extraction fixes that number wherever it runs.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from spacy.language import Language
from threadpoolctl import threadpool_info, threadpool_limits

from tests.conftest import EXAMPLE

#: Where the component below writes: the build extracts in a forked child process.
RECORD: list[Path] = []


def _blas_threads() -> int:
    return max(i["num_threads"] for i in threadpool_info() if i["user_api"] == "blas")


@Language.component("test_blas_threads")
def _record_blas_threads(doc):
    with RECORD[0].open("a") as f:
        f.write(f"{_blas_threads()}\n")
    return doc


def test_the_span_models_layers_multiply_with_numpys_blas():
    from extractors.pipeline import base_pipeline, span_model_dir

    model_dir = span_model_dir()
    if model_dir is None:
        pytest.skip("the span model's weights are not installed")
    nlp = base_pipeline(model_dir)
    layers = list(nlp.get_pipe("tok2vec").model.walk())
    assert len(layers) > 10
    assert {layer.ops.use_blis for layer in layers} == {False}
    ops = layers[0].ops
    x, y = np.ones((3, 4), dtype="f"), np.ones((4, 2), dtype="f")
    assert ops.gemm(x, y).tolist() == (x @ y).tolist()


def test_extraction_runs_on_one_blas_thread_whatever_the_caller_set(monkeypatch, tmp_path):
    from extractors import pipeline
    from kg.build import build

    if not any(i["user_api"] == "blas" for i in threadpool_info()):
        pytest.skip("NumPy's BLAS is not one threadpoolctl can see")
    base = pipeline.base_pipeline

    def with_recorder(model_dir):
        nlp = base(model_dir)
        nlp.add_pipe("test_blas_threads")
        return nlp

    monkeypatch.setattr(pipeline, "base_pipeline", with_recorder)
    RECORD[:] = [tmp_path / "threads"]
    with threadpool_limits(limits=2, user_api="blas"):
        build([EXAMPLE], tmp_path / "out", page=False, workers=1)
        after = _blas_threads()
    seen = RECORD[0].read_text().split()
    assert len(seen) >= 19  # each of the 19 abstracts went through it
    assert set(seen) == {"1"}
    assert after == 2  # the caller's setting is still the caller's
