"""``kg eval scierc`` and ``kg eval keywords``: extraction quality, scored officially."""

from __future__ import annotations

import json
from pathlib import Path

import click

from kg.cli.build import extract_predictions
from kg.cli.options import lexicon_option, span_model_option
from kg.core.readers import read_corpus

__all__ = [
    "COMMANDS", "eval_group", "json_option", "keywords", "path_argument", "pred_option",
    "scierc",
]

path_argument = click.argument("path", type=click.Path(path_type=Path, dir_okay=False,
                                                       exists=True))
pred_option = click.option(
    "--pred", type=click.Path(path_type=Path, dir_okay=False, exists=True), default=None,
    help="Score this `kg extract --format jsonl` output instead of extracting now.")
json_option = click.option("--json", "as_json", is_flag=True, help="Print one JSON object.")


def _preds(path: Path) -> dict[str, dict]:
    from extractors.evaluation import read_jsonl  # extractors inside commands (see kg.cli)

    return {str(r["id"]): r for r in read_jsonl(path)}


@click.group(name="eval")
def eval_group() -> None:
    """Measure extraction quality on annotated data."""


@eval_group.command()
@path_argument
@pred_option
@lexicon_option
@span_model_option
@json_option
def scierc(path: Path, pred: Path | None, lexicons: tuple[Path, ...], span_model: str | None,
           as_json: bool) -> None:
    """Exact-span precision, recall and F1 on a SciERC file (e.g. dev.jsonl), Generic excluded.

    Mentions typed "generic" are ignored; a mention counts only if it starts and ends on
    gold token boundaries. Typed scores also require the type (ours mapped to SciERC's).
    """
    from extractors.evaluation import read_jsonl, scierc_papers, score_scierc  # see _preds

    gold = read_jsonl(path)
    preds = _preds(pred) if pred else extract_predictions(scierc_papers(gold), lexicons, span_model)
    s = score_scierc(gold, preds)
    rows = {"untyped": s.untyped, "typed": s.typed}
    if as_json:
        click.echo(json.dumps({k: [round(v.precision, 3), round(v.recall, 3), round(v.f1, 3)]
                               for k, v in rows.items()}
                              | {"documents": s.documents, "gold_spans": s.gold}))
        return
    click.echo(f"SciERC {path.name}: {s.documents} abstracts, {s.gold} gold spans "
               "(Generic excluded), exact spans")
    click.echo(f"{'':9}{'precision':>10}{'recall':>8}{'F1':>7}{'tp':>6}{'fp':>6}{'fn':>6}")
    for name, v in rows.items():
        click.echo(f"{name:9}{v.precision:>10.3f}{v.recall:>8.3f}{v.f1:>7.3f}"
                   f"{v.tp:>6}{v.fp:>6}{v.fn:>6}")


@eval_group.command()
@path_argument
@pred_option
@lexicon_option
@span_model_option
@json_option
def keywords(path: Path, pred: Path | None, lexicons: tuple[Path, ...], span_model: str | None,
             as_json: bool) -> None:
    """Recall of author keywords that appear in the title or abstract (PATH.jsonl).

    A keyword counts as recalled when it equals, ignoring case, plural and hyphens, a
    mention text, a concept label or an alias that the graph keeps for its paper
    (mentions marked ``"accepted": false`` do not count; the figure with them is shown
    for comparison).
    """
    from extractors.evaluation import score_keywords  # see _preds

    papers = read_corpus([path]).papers
    preds = _preds(pred) if pred else extract_predictions(papers, lexicons, span_model)
    s = score_keywords(papers, preds)
    if as_json:
        click.echo(json.dumps({"present_keywords": s.present, "recalled": s.recalled,
                               "recall": round(s.recall, 3),
                               "recall_incl_rejected": round(s.recall_incl_rejected, 3)}))
        return
    click.echo(f"keywords {path.name}: {s.papers} papers, {s.present} author keywords present "
               f"in the text, {s.recalled} recalled by what the graph keeps: recall "
               f"{s.recall:.3f} ({s.recall_incl_rejected:.3f} counting rejected mentions)")


COMMANDS = [eval_group]
