"""Interactive, offline HTML pages of the graph, built with PyVis.

:func:`visualizations.networks.paper_concept_network` and friends build a
``pyvis.network.Network``; :func:`visualizations.page.render` turns it into one
self-contained HTML file (vis-network inlined, no CDN, all text escaped).
:mod:`visualizations.views` names the pages that ``kg viz --view`` and
``kg build`` write (graph, concepts, focus, bridge).
"""
