"""Reproducible training recipe for the shipped SciERC span model.

Runs, with one CPU thread and fixed seeds:

1. ``prepare_scierc.py``: SciERC -> ``corpus/{train,dev}.spacy`` (+ ``pretrain.jsonl``);
2. optionally ``spacy pretrain`` of the tok2vec (characters objective) on the
   unlabeled NeurIPS 2018 / ICLR 2018 abstracts + SciERC train text;
3. ``spacy train`` on SciERC train, model selection on SciERC dev;
4. copies ``model-best`` to ``extractors/models/scierc/``.

Usage (from the repository root)::

    python extractors/training/train.py --pretrain-epochs 0     # no pretraining
    python extractors/training/train.py --pretrain-epochs 19    # shipped recipe
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
DEST = ROOT / "extractors" / "models" / "scierc"


def run(cmd: list[str]) -> None:
    """Run a command from the repo root with single-threaded BLAS, echoing it."""
    env = dict(os.environ, OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1", MKL_NUM_THREADS="1")
    env["PYTHONHASHSEED"] = "0"
    print("+", " ".join(cmd), flush=True)
    subprocess.run(cmd, check=True, cwd=ROOT, env=env)


def main() -> None:
    """Command-line entry point."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--shared", type=Path, default=Path("/work/shared"))
    ap.add_argument("--config", type=Path, default=HERE / "config.cfg")
    ap.add_argument("--runs", type=Path, default=HERE / "runs")
    ap.add_argument(
        "--pretrain-epochs",
        type=int,
        default=19,
        help="epochs of `spacy pretrain` (0 = train the tok2vec from scratch)",
    )
    ap.add_argument(
        "--init-tok2vec",
        type=Path,
        default=None,
        help="reuse existing `spacy pretrain` weights (skips pretraining)",
    )
    ap.add_argument(
        "--install-only",
        type=Path,
        default=None,
        help="skip training; install RUN/model-best from an earlier `spacy train` output dir",
    )
    ap.add_argument("--no-install", action="store_true", help="don't copy to extractors/models")
    args = ap.parse_args()
    if args.install_only is not None:
        install(args.install_only / "model-best")
        return
    data = args.shared / "data"
    corpus = HERE / "corpus"
    py = sys.executable

    run(
        [
            py,
            str(HERE / "prepare_scierc.py"),
            "--scierc",
            str(data / "scierc"),
            "--out",
            str(corpus),
        ]
        + ["--unlabeled", str(data / "neurips2018.jsonl"), str(data / "iclr2018.jsonl")]
    )
    overrides = [
        "--paths.train", str(corpus / "train.spacy"),
        "--paths.dev", str(corpus / "dev.spacy"),
        "--paths.raw_text", str(corpus / "pretrain.jsonl"),
    ]  # fmt: skip
    if args.init_tok2vec is not None:
        overrides += ["--paths.init_tok2vec", str(args.init_tok2vec)]
    elif args.pretrain_epochs > 0:
        pre_dir = args.runs / "pretrain"
        shutil.rmtree(pre_dir, ignore_errors=True)
        run(
            [py, "-m", "spacy", "pretrain", str(args.config), str(pre_dir)]
            + overrides
            + ["--pretraining.max_epochs", str(args.pretrain_epochs)]
        )
        weights = pre_dir / f"model{args.pretrain_epochs - 1}.bin"
        overrides += ["--paths.init_tok2vec", str(weights)]
    out = args.runs / "final"
    run([py, "-m", "spacy", "train", str(args.config), "--output", str(out)] + overrides)

    if not args.no_install:
        install(out / "model-best")


def install(best: Path) -> None:
    """Copy a trained pipeline to ``extractors/models/scierc`` and fill in its meta."""
    shutil.rmtree(DEST, ignore_errors=True)
    shutil.copytree(best, DEST)
    meta_path = DEST / "meta.json"
    meta = json.loads(meta_path.read_text())
    meta.update(
        name="scierc_spans",
        version="0.1.0",
        description="SciERC scientific-term spans (CNN tok2vec + ner), see extractors/training",
        sources=[{"name": "SciERC", "url": "http://nlp.cs.washington.edu/sciIE/"}],
        license="MIT",
    )
    meta_path.write_text(json.dumps(meta, indent=2) + "\n")
    print("installed", DEST)


if __name__ == "__main__":
    main()
