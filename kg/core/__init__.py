"""The foundation: what every other part of ``kg`` builds on, importing none of it.

Terms (:mod:`kg.core.model`), vocabulary (:mod:`kg.core.vocab`), errors and
user-facing messages (:mod:`kg.core.errors`), corpus readers
(:mod:`kg.core.readers`), papers whose texts wait in a file (:mod:`kg.core.paper_file`),
text rules (:mod:`kg.core.text`), the files of a built
``OUT`` folder (:mod:`kg.core.layout`), result writers (:mod:`kg.core.output`),
the build's garbage-collector setting (:mod:`kg.core.collect`), this machine's
processes and ports (:mod:`kg.core.processes`) and the version (:mod:`kg.core.version`).
"""
