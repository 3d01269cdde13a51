"""The version of ``kg`` (``kg --version``, ``manifest.json``; ``kg.__version__``).

Kept in the foundation so that the build and the CLI read it without importing the
package ``kg`` itself, whose API names (``kg.open_graph`` …) belong to the top layer.
"""

__all__ = ["__version__"]

__version__ = "0.1.0"
