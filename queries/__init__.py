"""Questions asked of a built graph, one plain function per question and engine.

``queries.python`` answers from the in-memory model (networkx); the SPARQL and
Cypher engines answer the same questions from their stores. Every engine
returns the same items in the same order (ties broken by id).
"""
