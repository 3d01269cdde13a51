"""The span model's ``tok2vec`` multiplies with NumPy's BLAS, a text at a time.

BLIS (thinc's default) runs its generic reference kernel on processors it does not know,
several times slower than NumPy's OpenBLAS (bench/README.md); OpenBLAS's result for a row
depends on the rows multiplied with it and on the threads that share the product, so a
text's vectors must not depend on the texts batched with it nor on the caller's threads:
an incremental build (other batches) gives what a full build gives.
"""

from __future__ import annotations

import pickle

import numpy as np
import pytest
from threadpoolctl import threadpool_info, threadpool_limits

from tests.conftest import EXAMPLE


@pytest.fixture(scope="module")
def nlp():
    from extractors.pipeline import base_pipeline, span_model_dir

    model_dir = span_model_dir()
    if model_dir is None:
        pytest.skip("the span model's weights are not installed")
    return base_pipeline(model_dir)


@pytest.fixture(scope="module")
def texts():
    paragraphs = EXAMPLE.read_text(encoding="utf-8").split("\n\n")[1:]
    return [p.strip() for p in paragraphs if p.strip()]


def test_the_tok2vec_multiplies_with_numpys_blas_and_the_ner_with_blis(nlp):
    layers = list(nlp.get_pipe("tok2vec").model.walk())
    assert len(layers) > 10
    assert {layer.ops.use_blis for layer in layers} == {False}
    assert {layer.ops.use_blis for layer in nlp.get_pipe("ner").model.walk()} == {True}
    x, y = np.ones((3, 4), dtype="f"), np.ones((4, 2), dtype="f")
    assert layers[0].ops.gemm(x, y).tolist() == (x @ y).tolist()
    # the pipe still pickles (spaCy's n_process may send it), and comes back the same
    again = pickle.loads(pickle.dumps(nlp.get_pipe("tok2vec")))
    assert {layer.ops.use_blis for layer in again.model.walk()} == {False}
    doc = nlp("We propose a CRF model for named entity recognition.")
    assert np.array_equal(again.predict([doc])[0], doc.tensor)


def test_a_texts_vectors_do_not_depend_on_its_batch_nor_the_callers_threads(nlp, texts):
    def run(batch_size: int, threads: int) -> list:
        with threadpool_limits(limits=threads, user_api="blas"):
            docs = list(nlp.pipe(texts, batch_size=batch_size))
            assert max(i["num_threads"] for i in threadpool_info()
                       if i["user_api"] == "blas") == threads  # the caller's, kept
        return [(doc.tensor, [(e.start_char, e.end_char, e.label_) for e in doc.ents])
                for doc in docs]

    together, apart = run(64, 2), run(3, 1)
    assert len(together) == 19
    for (vectors, ents), (vectors_apart, ents_apart) in zip(together, apart, strict=True):
        assert vectors.shape[0] > 50
        assert np.array_equal(vectors, vectors_apart)  # bit for bit
        assert ents == ents_apart
    # the empty text too
    assert nlp("").tensor.shape[0] == 0
