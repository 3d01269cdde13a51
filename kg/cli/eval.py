"""``kg eval scierc``, ``kg eval relations``, ``kg eval keywords`` and ``kg eval judged``:
extraction quality."""

from __future__ import annotations

import json
from pathlib import Path

import click

from kg.cli.build import extract_predictions
from kg.cli.options import lexicon_option, span_model_option
from kg.core.readers import read_corpus

__all__ = [
    "COMMANDS", "eval_group", "judged", "json_option", "keywords", "path_argument",
    "pred_option", "relations", "scierc",
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


def _scierc_gold_and_preds(path: Path, pred: Path | None, lexicons: tuple[Path, ...],
                           span_model: str | None) -> tuple[list[dict], dict[str, dict]]:
    """A SciERC file's documents and the predictions to score: ``--pred``'s, or extracted now."""
    from extractors.evaluation import read_jsonl, scierc_papers  # see _preds

    gold = read_jsonl(path)
    preds = _preds(pred) if pred else extract_predictions(scierc_papers(gold), lexicons, span_model)
    return gold, preds


def _prf_json(rows: dict) -> dict[str, list[float]]:
    """Each row's precision, recall and F1, rounded to 3 places, for ``--json``."""
    return {k: [round(v.precision, 3), round(v.recall, 3), round(v.f1, 3)]
            for k, v in rows.items()}


def _echo_prf(rows: dict, *, width: int) -> None:
    """One precision/recall/F1 table: a row per name, with its true/false positive counts."""
    click.echo(f"{'':{width}}{'precision':>10}{'recall':>8}{'F1':>7}{'tp':>6}{'fp':>6}{'fn':>6}")
    for name, v in rows.items():
        click.echo(f"{name:{width}}{v.precision:>10.3f}{v.recall:>8.3f}{v.f1:>7.3f}"
                   f"{v.tp:>6}{v.fp:>6}{v.fn:>6}")


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
    from extractors.evaluation import score_scierc  # see _preds

    s = score_scierc(*_scierc_gold_and_preds(path, pred, lexicons, span_model))
    rows = {"untyped": s.untyped, "typed": s.typed}
    if as_json:
        click.echo(json.dumps(_prf_json(rows) | {"documents": s.documents, "gold_spans": s.gold}))
        return
    click.echo(f"SciERC {path.name}: {s.documents} abstracts, {s.gold} gold spans "
               "(Generic excluded), exact spans")
    _echo_prf(rows, width=9)


@eval_group.command()
@path_argument
@pred_option
@lexicon_option
@span_model_option
@json_option
def relations(path: Path, pred: Path | None, lexicons: tuple[Path, ...], span_model: str | None,
              as_json: bool) -> None:
    """Relation precision, recall and F1 on a SciERC file (e.g. dev.jsonl), overall and per type.

    A relation counts when both argument spans start and end on gold token boundaries and
    its type matches; COMPARE and CONJUNCTION count either way round; gold arguments
    include Generic spans (SciERC's "Rel" setting, as the official scorer's relscore).
    """
    from extractors.evaluation import score_relations  # see _preds

    s = score_relations(*_scierc_gold_and_preds(path, pred, lexicons, span_model))
    rows = {k.lower(): v for k, v in {"overall": s.overall, **s.by_type}.items()}
    if as_json:
        click.echo(json.dumps(_prf_json(rows)
                              | {"documents": s.documents, "gold": s.overall.tp + s.overall.fn,
                                 "predicted": s.overall.tp + s.overall.fp}))
        return
    click.echo(f"SciERC {path.name}: {s.documents} abstracts, {s.overall.tp + s.overall.fn} "
               "gold relations, both arguments on gold token boundaries and the type right")
    _echo_prf(rows, width=14)


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


@eval_group.command()
@path_argument
@click.option("--split", type=click.Choice(["dev", "test", "dev2", "all"]), default="dev",
              show_default=True,
              help="Which split to score; tune on dev and dev2 only, test is held out.")
@click.option("--context", "contexts", multiple=True,
              type=click.Path(path_type=Path, dir_okay=False, exists=True),
              help="Extract the judged abstracts inside this corpus (repeatable; its "
                   "keywords withheld too), as a build of the whole corpus would; only the "
                   "judged papers are scored.")
@pred_option
@lexicon_option
@span_model_option
@click.option("--show-unmatched", is_flag=True,
              help="Also list each paper's generic and junk concepts and its missed key "
                   "concepts (for auditing; never add them to the judged set afterwards).")
@click.option("--about", is_flag=True,
              help="Judge only the concepts each paper is about (its best concepts by "
                   "salience), not every concept it mentions.")
@json_option
def judged(path: Path, split: str, contexts: tuple[Path, ...], pred: Path | None,
           lexicons: tuple[Path, ...], span_model: str | None, show_unmatched: bool,
           about: bool, as_json: bool) -> None:
    """Expert-judged quality of the concepts the graph keeps per paper (bench/judged/).

    Extracts the judged abstracts (title and abstract only, keywords withheld) and
    judges every concept linked to each paper against the annotation: precision
    (key or accepted / linked), generic share, junk share (neither), type accuracy
    (over the correct ones) and key-concept recall. Rubric: bench/judged/README.md.
    """
    from extractors.evaluation import read_jsonl  # see _preds
    from extractors.judged import (
        judged_papers,
        score_judged,
        select_split,
        validate_judged,
        with_context,
    )

    records = select_split(validate_judged(read_jsonl(path), str(path)), split)
    if pred:
        preds = _preds(pred)
    else:
        papers = judged_papers(records)
        if contexts:
            papers = with_context(papers, read_corpus(contexts).papers)
        preds = extract_predictions(papers, lexicons, span_model)
    if about:
        preds = {pid: {**r, "concepts": [c for c in r.get("concepts", []) if c.get("about")]}
                 for pid, r in preds.items()}
    s = score_judged(records, preds)
    figures = {"papers": s.papers, "linked": s.linked,
               "precision": round(s.precision, 3), "generic": round(s.generic_share, 3),
               "junk": round(s.junk_share, 3), "type_accuracy": round(s.type_accuracy, 3),
               "key_recall": round(s.key_recall, 3), "per_paper": round(s.per_paper, 2)}
    if as_json:
        if show_unmatched:
            figures["unmatched"] = [
                {"paper": v.paper, "label": v.label, "type": v.type, "verdict": v.verdict}
                for v in s.verdicts if v.verdict != "correct"]
            figures["missed_keys"] = [{"paper": p, "key": k} for p, k in s.missed_keys]
        click.echo(json.dumps(figures))
        return
    where = f" inside {' + '.join(c.name for c in contexts)}" if contexts and not pred else ""
    click.echo(f"judged {path.name} ({split}{where}): {s.papers} papers, {s.linked} linked "
               f"concepts ({s.per_paper:.1f} per paper)")
    click.echo(f"  precision      {s.precision:.3f}  ({s.correct} key or accepted)")
    click.echo(f"  generic        {s.generic_share:.3f}  ({s.generic})")
    click.echo(f"  junk           {s.junk_share:.3f}  ({s.junk})")
    click.echo(f"  type accuracy  {s.type_accuracy:.3f}  ({s.typed_right} of {s.correct})")
    click.echo(f"  key recall     {s.key_recall:.3f}  ({s.key_found} of {s.key_total})")
    if show_unmatched:
        for v in s.verdicts:
            if v.verdict != "correct":
                click.echo(f"{v.verdict}\t{v.paper}\t{v.type}\t{v.label}")
            elif not v.type_ok:
                click.echo(f"type\t{v.paper}\t{v.type}\t{v.label} (judged: {v.entry})")
        for p, k in s.missed_keys:
            click.echo(f"missed-key\t{p}\t\t{k}")


COMMANDS = [eval_group]
