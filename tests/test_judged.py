"""``kg eval judged``: the expert-judged set (bench/judged/) and its scorer."""

import json
import subprocess
import sys

import pytest

from extractors.evaluation import read_jsonl
from extractors.judged import judged_key, occurs, text_keys, validate_judged
from tests.conftest import ROOT

JUDGED = ROOT / "bench" / "judged" / "judged.jsonl"


def _entry(label, types, *variants):
    return {"label": label, "types": types, "variants": list(variants)}


# Two hand-judged abstracts and the concepts a system kept for them; the numbers each
# test expects are counted by hand from these.
RECORDS = [
    {"id": "d1", "corpus": "x", "split": "dev", "title": "Graph neural networks",
     "abstract": "We train GNNs with pre-training and report performance and accuracy.",
     "key": [_entry("graph neural network", ["method"], "GNN"),
             _entry("pre-training", ["method"])],
     "accept": [_entry("accuracy", ["metric"])],
     "generic": ["performance"]},
    {"id": "t1", "corpus": "x", "split": "test", "title": "Hallucination in LLMs",
     "abstract": "The hallucination of large language models (LLMs) is measured by FooBench.",
     "key": [_entry("hallucination", ["concept"]), _entry("FooBench", ["dataset"]),
             _entry("large language model", ["method"], "LLM")],
     "accept": [], "generic": ["measured"]},
]
PREDS = [
    {"id": "d1", "mentions": [
        {"text": "GNNs", "concept": "gnn", "accepted": True},
        {"text": "report performance", "concept": "perf", "accepted": True}],
     "concepts": [
        # correct via a mention text, right type; key
        {"id": "gnn", "label": "graph network model", "type": "method", "aliases": []},
        # correct with spaces and hyphens ignored ("pretraining"), wrong type; key
        {"id": "pt", "label": "the pretraining", "type": "task", "aliases": []},
        # label is generic: its alias "accuracy" must not make it correct
        {"id": "perf", "label": "performance", "type": "metric", "aliases": ["accuracy"]},
        # junk
        {"id": "j", "label": "train GNNs with", "type": "concept", "aliases": []},
        # not kept by the graph / not linked through a mention: ignored
        {"id": "r", "label": "accuracy", "type": "metric", "accepted": False},
        {"id": "b", "label": "neural network", "type": "method", "via": "broader"}]},
    {"id": "t1", "mentions": [], "concepts": [
        # correct through an alias; type right
        {"id": "llm", "label": "language modelling", "type": "method", "aliases": ["LLMs"]},
        {"id": "fb", "label": "FooBench", "type": "method", "aliases": []}]},
]


@pytest.fixture
def judged_files(tmp_path):
    gold, pred = tmp_path / "judged.jsonl", tmp_path / "pred.jsonl"
    gold.write_text("".join(json.dumps(r) + "\n" for r in RECORDS))
    pred.write_text("".join(json.dumps(r) + "\n" for r in PREDS))
    return gold, pred


def _eval(*args):
    return subprocess.run([sys.executable, "-m", "kg", "eval", "judged", *map(str, args)],
                          capture_output=True, text=True, cwd=ROOT)


def test_kg_eval_judged_counts_a_hand_judged_fixture(judged_files):
    gold, pred = judged_files
    out = _eval(gold, "--pred", pred, "--split", "all", "--json")
    assert out.returncode == 0, out.stderr
    # 6 linked: gnn, pt, llm, fb correct; perf generic; j junk. Types right: gnn, llm.
    # Keys: GNN, pre-training, LLM, FooBench found; hallucination missed (4 of 5).
    assert json.loads(out.stdout) == {
        "papers": 2, "linked": 6, "precision": 0.667, "generic": 0.167, "junk": 0.167,
        "type_accuracy": 0.5, "key_recall": 0.8, "per_paper": 3.0}


def test_kg_eval_judged_scores_one_split_at_a_time(judged_files):
    gold, pred = judged_files
    dev = json.loads(_eval(gold, "--pred", pred, "--json").stdout)  # dev is the default
    test = json.loads(_eval(gold, "--pred", pred, "--split", "test", "--json").stdout)
    assert (dev["papers"], dev["linked"], dev["precision"], dev["key_recall"]) == \
        (1, 4, 0.5, 1.0)
    assert (test["papers"], test["linked"], test["precision"], test["key_recall"]) == \
        (1, 2, 1.0, 0.667)


def test_kg_eval_judged_scores_the_dev2_split_alone(judged_files):
    gold, pred = judged_files
    # the test paper relabelled dev2: --split dev2 scores it alone, dev and test leave it out
    gold.write_text(json.dumps(RECORDS[0]) + "\n" + json.dumps(dict(RECORDS[1], split="dev2"))
                    + "\n")
    dev2 = json.loads(_eval(gold, "--pred", pred, "--split", "dev2", "--json").stdout)
    assert (dev2["papers"], dev2["linked"], dev2["precision"], dev2["key_recall"]) == \
        (1, 2, 1.0, 0.667)
    assert json.loads(_eval(gold, "--pred", pred, "--json").stdout)["papers"] == 1
    assert json.loads(_eval(gold, "--pred", pred, "--split", "test", "--json").stdout) \
        ["papers"] == 0
    assert json.loads(_eval(gold, "--pred", pred, "--split", "all", "--json").stdout) \
        ["papers"] == 2


def test_kg_eval_judged_shows_what_did_not_match(judged_files):
    gold, pred = judged_files
    out = _eval(gold, "--pred", pred, "--split", "all", "--show-unmatched").stdout
    lines = {tuple(line.split("\t")) for line in out.splitlines() if "\t" in line}
    assert lines == {("generic", "d1", "metric", "performance"),
                     ("junk", "d1", "concept", "train GNNs with"),
                     ("type", "d1", "task", "the pretraining (judged: pre-training)"),
                     ("type", "t1", "method", "FooBench (judged: FooBench)"),
                     ("missed-key", "t1", "", "hallucination")}


def test_a_malformed_judged_record_is_one_line_naming_file_and_line(judged_files):
    gold, pred = judged_files
    bad = dict(RECORDS[1], split="train")
    gold.write_text(json.dumps(RECORDS[0]) + "\n" + json.dumps(bad) + "\n")
    out = _eval(gold, "--pred", pred)
    assert out.returncode == 2
    assert out.stderr.strip().count("\n") == 0
    assert f"{gold}:line 2" in out.stderr and "split must be one of dev, test, dev2" in out.stderr


def test_judged_keys_ignore_case_plural_hyphens_spaces_and_articles():
    assert judged_key("The Multi-Modal LLMs") == judged_key("multimodal LLM")
    assert judged_key("a") == "a"  # a lone article is the phrase itself
    assert judged_key("graph learning") != judged_key("graph")


def test_the_committed_judged_set_is_well_formed():
    records = validate_judged(read_jsonl(JUDGED), str(JUDGED))
    assert len({r["id"] for r in records}) == len(records)
    for r in records:
        # "scale" stands in "multi-scale", whose key is "multiscale": also word by word
        keys = text_keys(r["title"] + " " + r["abstract"])
        assert 3 <= len(r["key"]) <= 8, r["id"]
        for e in r["key"] + r["accept"]:
            for form in [e["label"], *e["variants"]]:
                assert occurs(form, keys), (r["id"], form)
        for g in r["generic"]:
            assert occurs(g, keys), (r["id"], g)


def test_kg_eval_judged_extracts_inside_a_context_corpus_and_scores_only_judged(tmp_path,
                                                                                judged_files):
    gold, _ = judged_files
    context = tmp_path / "context.jsonl"
    context.write_text(json.dumps({"id": "c1", "title": "Graph neural networks",
                                   "abstract": "GNNs and graph neural networks (GNNs).",
                                   "keywords": ["hallucination"]}) + "\n")
    out = _eval(gold, "--split", "all", "--context", context, "--span-model", "none")
    assert out.returncode == 0, out.stderr
    assert "(all inside context.jsonl): 2 papers" in out.stdout
    alone = json.loads(_eval(gold, "--split", "all", "--span-model", "none", "--json").stdout)
    assert alone["papers"] == 2 and alone["linked"] > 0
