"""Pages opened in a real headless Chromium (Debian's, driven by Selenium).

Every host name resolves to nothing, so a page that tried to load anything
from the network would fail; each page must draw the expected network, log no
console error, show hostile text as text, and find nodes from the search box.
Screenshots go to ``test-artifacts/``.
"""

from __future__ import annotations

import pytest

from tests import browser as chromium
from tests.conftest import shared_file
from tests.test_viz import HOSTILE, hostile_kg
from visualizations.views import make_view, write_view

pytestmark = pytest.mark.skipif(chromium.missing() is not None,
                                reason=chromium.missing() or "")

DRAWN = """
const b = window.kgNetwork.body;
return [b.nodeIndices.length, b.edgeIndices.length];
"""

EXAMPLE_VIEWS = {
    "graph": {},
    "concepts": {},
    "focus": {"text": "GNNs"},
    "bridge": {"topic_a": "reinforcement learning", "topic_b": "uncertainty quantification"},
}
NEURIPS_VIEWS = {
    "graph": {},
    "concepts": {},
    "focus": {"text": "reinforcement learning"},
    "bridge": {"topic_a": "reinforcement learning", "topic_b": "neural network"},
}


@pytest.fixture(scope="session")
def browser():
    b = chromium.Browser()
    yield b
    b.close()


@pytest.fixture(scope="session")
def neurips2018_kg(request, tmp_path_factory):
    """The NeurIPS 2018 model: from a shared session build when conftest has one."""
    try:
        return request.getfixturevalue("neurips2018_build").graph
    except pytest.FixtureLookupError:
        from kg.build import build

        src = shared_file("neurips2018.jsonl")
        out = tmp_path_factory.mktemp("n18-pages") / "out"
        return build([src], out, page=False).graph


def expected_counts(view) -> tuple[int, int]:
    hidden = view.hidden_edges
    return len(view.net.nodes), sum(1 for e in view.net.edges if e.get("kind") not in hidden)


def open_view(browser, view, path, name):
    write_view(view, path)
    browser.open(path)
    errors = browser.errors()
    browser.screenshot(name)
    assert errors == []
    assert browser.js("return performance.getEntriesByType('resource').length") == 0
    assert browser.js(DRAWN) == list(expected_counts(view))


@pytest.mark.parametrize("name", list(EXAMPLE_VIEWS))
def test_example_views_render(browser, example_kg, tmp_path, name):
    view = make_view(example_kg, name, **EXAMPLE_VIEWS[name])
    open_view(browser, view, tmp_path / f"{name}.html", f"example-{name}")
    assert browser.js("return document.querySelectorAll('canvas').length") == 1


@pytest.mark.parametrize("name", list(NEURIPS_VIEWS))
def test_neurips2018_views_render(browser, neurips2018_kg, tmp_path, name):
    view = make_view(neurips2018_kg, name, **NEURIPS_VIEWS[name])
    if name == "graph":
        assert len(view.net.nodes) > 1000
    open_view(browser, view, tmp_path / f"{name}.html", f"neurips2018-{name}")
    # the page responds: a search selects and centres a node
    assert browser.js("return kgFind('reinforcement learning')") is not None


DRAWN_COLOURS = """
const b = window.kgNetwork.body, out = [];
for (const id of b.nodeIndices) {
  const want = window.kgData.nodes.get(id).color;
  if (typeof want === "string") {
    out.push([id, want.toLowerCase(), b.nodes[id].options.color.background.toLowerCase()]);
  }
}
return out;
"""


@pytest.mark.parametrize("name", list(EXAMPLE_VIEWS))
def test_nodes_are_drawn_in_their_own_colours(browser, example_kg, tmp_path, name):
    # vis-network's default group palette once won over the colours the legend promises
    view = make_view(example_kg, name, **EXAMPLE_VIEWS[name])
    write_view(view, tmp_path / f"{name}.html")
    browser.open(tmp_path / f"{name}.html")
    pairs = browser.js(DRAWN_COLOURS)
    assert pairs
    assert [p for p in pairs if p[1] != p[2]] == []


def test_legend_folds_away_and_back(browser, example_kg, tmp_path):
    view = make_view(example_kg, "graph")
    write_view(view, tmp_path / "graph.html")
    browser.open(tmp_path / "graph.html")
    shown = ("return [...document.querySelectorAll('#legend input')]"
             ".filter(e => e.offsetParent).length")
    n = browser.js(shown)
    assert n > 0
    browser.js("document.querySelector('#legend button.fold').click()")
    assert browser.js(shown) == 0
    browser.js("document.querySelector('#legend button.fold').click()")
    assert browser.js(shown) == n


def test_search_box_finds_and_centres_a_node(browser, example_kg, tmp_path):
    from selenium.webdriver.common.by import By

    view = make_view(example_kg, "graph")
    open_view(browser, view, tmp_path / "search.html", "example-search-before")
    box = browser.driver.find_element(By.ID, "search")
    box.send_keys("MinHash")
    browser.driver.find_element(By.CSS_SELECTOR, "#search-form button").click()
    target = next(n["id"] for n in view.net.nodes if n["label"] == "MinHash")
    assert browser.js("return kgNetwork.getSelectedNodes()") == [target]
    # centred: the view moves onto the node (animated, so poll)
    browser.wait(lambda: browser.js(
        "const p = kgNetwork.getPositions([arguments[0]])[arguments[0]];"
        "const v = kgNetwork.getViewPosition();"
        "return Math.hypot(p.x - v.x, p.y - v.y) < 5;", target), 20, "node never centred")
    status = browser.js("return document.getElementById('status').textContent")
    assert status == "found: MinHash"
    panel = browser.js("return document.getElementById('panel').textContent")
    assert "MinHash" in panel and "linked to 1" in panel
    browser.screenshot("example-search-found")
    assert browser.js("return kgFind('no such node anywhere')") is None
    assert browser.errors() == []


def test_filters_hide_types_and_low_degree_nodes(browser, example_kg, tmp_path):
    view = make_view(example_kg, "graph")
    open_view(browser, view, tmp_path / "filters.html", "example-filters")
    n_papers = sum(1 for n in view.net.nodes if n["kind"] == "paper")
    browser.js("document.querySelector('input[data-group=paper]').click()")
    assert browser.js(DRAWN)[0] == len(view.net.nodes) - n_papers
    browser.js("document.querySelector('input[data-group=paper]').click()")
    browser.js("const e = document.getElementById('min-degree'); e.value = '2';"
               "e.dispatchEvent(new Event('input'));")
    assert browser.js(DRAWN)[0] == sum(1 for n in view.net.nodes if n["degree"] >= 2)
    browser.js("document.querySelector('input[data-edge-kind=shares]').click()")
    assert browser.js("return kgData.edgeView.length") == sum(
        1 for e in view.net.edges if e["kind"] == "mentions")
    assert browser.errors() == []


def test_hostile_text_is_shown_as_text_and_never_runs(browser, tmp_path):
    from selenium.webdriver.common.action_chains import ActionChains
    from selenium.webdriver.common.by import By

    view = make_view(hostile_kg(), "graph")
    open_view(browser, view, tmp_path / "hostile.html", "hostile-before")
    assert browser.js("return window.kgPwned") is None
    assert browser.js("return document.querySelectorAll('img, b').length") == 0
    assert browser.js("return document.title") == "Papers and the concepts they share"
    # hovering shows the tooltip, as text
    pos = browser.js("const id = 'paper:p1'; return kgNetwork.canvasToDOM("
                     "kgNetwork.getPositions([id])[id]);")
    canvas = browser.driver.find_element(By.CSS_SELECTOR, "#network canvas")
    size = canvas.size
    ActionChains(browser.driver).move_to_element_with_offset(
        canvas, int(pos["x"] - size["width"] / 2), int(pos["y"] - size["height"] / 2)).perform()
    tip = browser.wait(lambda: browser.js(
        "const t = document.querySelector('div.vis-tooltip');"
        "return t && t.style.visibility !== 'hidden' && t.textContent;"), 20, "no tooltip")
    assert HOSTILE in tip and "<b>V</b> 2018" in tip
    browser.screenshot("hostile-tooltip")
    # the search finds the paper by its unicode, and the panel shows its title verbatim
    assert browser.js("return kgFind('漢字')") == "paper:p1"
    panel = browser.js("return document.getElementById('panel').textContent")
    assert HOSTILE in panel and "</script><b>evil" in panel
    assert browser.js("return window.kgPwned") is None
    assert browser.js("return document.querySelectorAll('img, b').length") == 0
    assert browser.errors() == []
