"""Evaluation of content extraction: measures, gold blocks, test packages, reports and plots.

* :mod:`~fce.evaluation.measures` — precision / recall / F1 of an extraction against gold text (Gottron 2007's
  four measures, Arias et al. 2009's LCString and LCSequence, FastCE's WF and BF) and their aggregates;
* :mod:`~fce.evaluation.gold_blocks` — which blocks of a page are content, from the gold text;
* :mod:`~fce.evaluation.packages` — the documents of test packages / datasets on disk;
* :mod:`~fce.evaluation.report` — per-page rows (TSV / JSON lines), summaries, a console table;
* :mod:`~fce.evaluation.plots` — PNG charts (needs matplotlib, imported only when a chart is drawn).

Everything but the last three is pure: the harness does the I/O.
"""

from fce.evaluation.gold_blocks import GOLD_BLOCK_MIN_ALIGNED, aligned_fractions, label_gold_blocks
from fce.evaluation.measures import (
    BAG,
    BLOCK,
    CHAR,
    LCSEQUENCE,
    LCSTRING,
    PRF,
    SET,
    TEXT_MEASURES,
    WORD,
    all_measures,
    bag_of_words_f,
    block_f,
    char_f,
    lcsequence_f,
    lcstring_f,
    mean,
    mean_prf,
    site_macro_mean,
    std,
    word_f,
    word_set_f,
    words,
)
from fce.evaluation.packages import Document, GoldStatus, group_by_site, iter_documents, read_description
from fce.evaluation.plots import plot_all, plot_f1_by_site, plot_precision_recall, plot_time
from fce.evaluation.report import (
    EvalRow,
    Summary,
    kilobytes,
    read_rows,
    render_table,
    summarise,
    write_rows,
    write_summary_tsv,
)

__all__ = [
    "BAG",
    "BLOCK",
    "CHAR",
    "GOLD_BLOCK_MIN_ALIGNED",
    "LCSEQUENCE",
    "LCSTRING",
    "PRF",
    "SET",
    "TEXT_MEASURES",
    "WORD",
    "Document",
    "EvalRow",
    "GoldStatus",
    "Summary",
    "aligned_fractions",
    "all_measures",
    "bag_of_words_f",
    "block_f",
    "char_f",
    "group_by_site",
    "iter_documents",
    "kilobytes",
    "label_gold_blocks",
    "lcsequence_f",
    "lcstring_f",
    "mean",
    "mean_prf",
    "plot_all",
    "plot_f1_by_site",
    "plot_precision_recall",
    "plot_time",
    "read_description",
    "read_rows",
    "render_table",
    "site_macro_mean",
    "std",
    "summarise",
    "word_f",
    "word_set_f",
    "words",
    "write_rows",
    "write_summary_tsv",
]
