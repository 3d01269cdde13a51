"""Extractors: text in, typed concept mentions out.

Components are spaCy pipeline components registered by name (see
:mod:`extractors.components`); :func:`extractors.pipeline.make_pipeline` builds
the default pipeline and :func:`extractors.pipeline.extract_corpus` runs it over
papers.
"""
