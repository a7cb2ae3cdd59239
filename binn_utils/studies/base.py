"""What a study is, and the training scales its settings are built at.

A :class:`Study` is one experiment of the paper: a grid of settings on one benchmark, the
paper's default point in that grid, the figure that draws it, the summary of its numbers
and the chapter that reports it.  Every study lives in its own module of this package and
is listed once in the registry (``binn_utils.studies.REGISTRY``).

Training scales (``scale``; the CLI's ``--scale``):

* ``quick``: a smoke run for CI (few epochs, two replicates, no compilation); its numbers
  mean nothing scientifically.
* ``book``: the paper's 4000 epochs with 5 initialisations (10 for the default runs), a
  smaller noise study.
* ``lite``: the Supporting Material repeats at 1000 epochs and 3 initialisations.
* ``paper``: the published grid (4000 epochs, ten initialisations, ten datasets in the
  noise study).
"""
from __future__ import annotations

import inspect
from dataclasses import dataclass, field
from typing import Callable, Mapping

import numpy as np

from ..analysis import results_table
from ..analysis.reporting import find, fmt, value_label
from ..analysis.verdicts import Interval, Summary, Verdict, best_in, difference
from ..engine.runs import TrainConfig, TrainingError
from ..engine.observations import DEFAULT_NOISE_VAR
from ..store.stores import committed_datasets, committed_distinct_seeds, committed_scale
from ..store.setting import Setting, on_data, replicates

SCALES = {
    "quick": dict(epochs=12, seeds=2, datasets=2, compile=False, big_epochs=6, big_datasets=1, budget_steps=150),
    # book: the paper's 4000 epochs, but 5 initialisations per setting (10 for the
    # default runs) and a reduced noise study -- what two CPU cores allowed in one session
    "book": dict(epochs=4000, seeds=5, datasets=3, compile=True, big_epochs=500, big_datasets=2,
                 budget_steps=40_000, noise_seeds=3, big_seeds=2),
    # lite: the Supporting Material repeats (other noise levels, dense data) at a quarter
    # of the training length and 3 initialisations
    "lite": dict(epochs=1000, seeds=3, datasets=2, compile=True, big_epochs=250, big_datasets=1,
                 budget_steps=10_000, noise_seeds=2, big_seeds=2),
    # paper: the published grid, except that the (6, 128) u-network of the noise study,
    # ~25x dearer per step, gets 3 datasets instead of 10 (10 initialisations each); 6 in the
    # like-for-like retraining with each dataset's own seeds (``--distinct-seeds``)
    "paper": dict(epochs=4000, seeds=10, datasets=10, compile=True, big_epochs=4000, big_datasets=3,
                  big_datasets_distinct=6, budget_steps=75_000),
}
#: The paper's default hyperparameters: written once, in ``TrainConfig``.
PAPER_DEFAULTS = TrainConfig()
#: The paper's symbol for each swept configuration field (not the field's name): a study's
#: ``symbol`` and the Supporting Material comparison table's setting column.
PARAMETER_WORDS = {"lr": "$r$", "w_pde": "$w_\\mathrm{PDE}$", "batch_size": "$B$", "arch_D": "$D$ network",
                   "arch_V": "$V$ network", "arch_u": "$u$ network", "noise_var": "$\\sigma^2$"}


def scale_values(name: str) -> dict:
    """The numbers of one training scale (epochs, initialisations, datasets, ...)."""
    if name not in SCALES:
        raise ValueError(f"unknown scale {name!r}; choose one of {sorted(SCALES)}")
    return dict(SCALES[name])


def count(name: str, value, default) -> int:
    """An override (epochs, seeds, datasets, budget steps): ``default`` if None, else a
    positive integer (0, negatives and fractions are errors, never replaced or truncated)."""
    if value is None:
        return int(default)
    if not isinstance(value, (int, np.integer)) or isinstance(value, bool) or value < 1:
        raise TrainingError(f"{name} must be a positive integer, got {value!r}")
    return int(value)


def train_config(p: dict, epochs=None, **kw) -> TrainConfig:
    """The paper's defaults with a scale's epochs and compilation, and ``kw`` changed."""
    return TrainConfig(epochs=count("epochs", epochs, p["epochs"]), compile=p["compile"], **kw)


def initialisations(p: dict, seeds, datasets=None, distinct_seeds=False):
    """(datasets, seeds) of one setting: ``seeds`` initialisations (the scale's by default) on
    each of ``datasets`` datasets (independent splits and noise draws; default one, dataset 0);
    ``distinct_seeds``: each dataset its own seeds (``store.setting.replicates``)."""
    return replicates(count("seeds", seeds, p["seeds"]), count("datasets", datasets, 1), distinct=bool(distinct_seeds))


def main_text_datasets(name: str, params: Mapping) -> int | None:
    """The datasets of study ``name``'s committed main-text results (``committed_datasets``)
    where the chapter parameters ``params`` ask for them (:func:`asks_main_text`); None
    otherwise (the study's own)."""
    return committed_datasets(name) if asks_main_text(name, params) else None


def asks_main_text(name: str, params: Mapping) -> bool:
    """Whether chapter parameters ``params`` ask for study ``name``'s committed main-text
    configuration: the committed scale (``scale`` None or that scale) with its own epochs and
    initialisations (``epochs``, ``seeds`` None), the paper's noise level (``noise_var`` None or
    that level), the 71-point grid, the reaction term as committed (``reaction`` absent or
    "supporting")."""
    return (params.get("scale") in (None, committed_scale(name)) and not params.get("dense")
            and params.get("epochs") is None and params.get("seeds") is None
            and params.get("reaction", "supporting") == "supporting"
            and params.get("noise_var", DEFAULT_NOISE_VAR) in (None, DEFAULT_NOISE_VAR))


def value_range(pair) -> str:
    """A range of swept values as the claims write it, e.g. '[5e-5, 5e-4]'."""
    return "[{}, {}]".format(*(value_label(v) for v in pair))


def number_label(v) -> str:
    return f"{v:g}"


@dataclass(frozen=True)
class Phrase:
    """Words a caption needs, as data: ``kind`` names the presentation layer's wording of ``args``
    (``presentation.tables.PHRASES``; the studies sit below the words)."""

    kind: str                     # "unobserved", "budget", "failure_marks"
    args: tuple = ()


@dataclass(frozen=True)
class Drawing:
    """What a study's Supporting Material figure draws and what its caption says (``Study.drawing``):
    ``numbers``, computed from the results table, follow the results into the study's figure
    function (``presentation.figures.STUDY_FIGURES``); ``says`` maps a caption's slot (the page glues
    it as ``sm_<study>_<slot>``) to a sentence or a :class:`Phrase`."""

    numbers: tuple
    says: Mapping = field(default_factory=dict)


def error_boxes(res, by) -> tuple:
    """(errors, boxes) of one setting list ``res``: one row per network and error, and per value of
    ``by`` (swept columns) and quantity the quartiles, failed forward solves (NaN errors, left out
    and counted) and diverged trainings -- what a box-plot panel draws."""
    errors = results_table.long(results_table.table(res))
    errors["diverged"] = errors["status"] != "ok"
    groups = errors.groupby([*by, "quantity"])
    boxes = groups["value"].describe().astype({"count": int})
    boxes["failed"] = groups.size() - boxes["count"]
    boxes["diverged"] = groups["diverged"].sum()
    return errors, boxes


def box_drawing(res, by) -> Drawing:
    """The drawing of a study whose figure ends in error boxes over ``by``, its caption counting the
    failures drawn beside them."""
    errors, boxes = error_boxes(res, by)
    return Drawing((errors, boxes), {"marks": Phrase("failure_marks", (boxes,))})


@dataclass(frozen=True)
class Shown:
    """Results of a study the book shows: one row of the scorecard's table of what was run."""

    what: str                     # e.g. "Fig. 1, the authors' data"
    part: int | None = None       # only this part of a study in parts
    variant: str | None = None    # the settings of this registered study instead, at the study's scale
    overrides: Mapping = field(default_factory=dict)  # settings overrides, e.g. {"initial": "text"}


@dataclass(frozen=True)
class Choice:
    """One of our choices where the paper's text and the authors' code differ: checking the
    study's claims with ``check`` keyword arguments ``overrides`` takes the alternative."""

    ours: str
    alternative: str
    overrides: Mapping


@dataclass(frozen=True)
class PaperPoint:
    """A point of a study's grid where the paper says how the recovery went (the diagnostics
    chapter's table): its ``Setting.meta`` values, the point in the book's words (math
    allowed) and what the paper says happens there."""

    point: Mapping                # e.g. {"lr": 5e-7}
    label: str                    # e.g. "$r = 5\\times10^{-7}$"
    says: str                     # e.g. "under-fitting: loss still falling, large errors"


@dataclass(frozen=True)
class Study:
    """One experiment of the paper.

    ``build(scale, **overrides)`` returns the study's settings: a list, or a tuple of lists
    for a study whose results come in parts (``parts`` names them; the batch-size study:
    fixed epochs, fixed budget).  ``default`` is the paper's default point in the study's
    swept values (``Setting.meta`` keys), derived from ``PAPER_DEFAULTS``.
    """

    name: str                        # as the CLI and ``Setting.study`` spell it
    title: str                       # in words, e.g. "learning rate"
    benchmark: str                   # the PDE problem it trains on
    problem: str                     # that problem in words
    build: Callable
    default: Mapping = field(default_factory=dict)
    chapter: str | None = None       # the notebook that reports it
    paper_figure: int | None = None  # the paper's figure it reproduces
    parts: tuple = ("",)             # names of the parts of its results
    sweep: bool = False              # a hyperparameter sweep of the main text (Figs. 2-6)
    repeated_on: tuple = ()          # grids ("sparse", "dense") the Supporting Material repeats it on
    sweeps_noise: bool = False       # its grid includes the noise variance
    summary: Callable | None = None  # results -> numbers and verdicts (the study module's ``summary``)
    bullets: Callable | None = None  # summary -> its comparisons with the paper, as markdown bullets
    #: (noise variance, dense) -> the paper's figure of that configuration (the Supporting
    #: Material's figures continue the main text's numbering: Figs. 7-27)
    paper_figures: Mapping = field(default_factory=dict)
    described_by: str | None = None  # a swept value whose settings ran with different budgets
    heading: str | None = None       # what it varies, for tables (default: ``title``)
    #: ``PaperPoint``s: the points of its grid where the paper reports a failed recovery
    paper_failures: tuple = ()
    #: (verdict key of ``summary``, label): the comparisons a Supporting Material repeat is checked on
    repeat_checks: tuple = ()
    #: the paper's claims this study checks (``verdicts.Claim``; ``check(ctx)`` reads the results
    #: through ``ctx``, a ``claims.context.Context``)
    claims: tuple = ()
    choices: tuple = ()              # ``Choice``s: our readings that a claim's verdict may depend on
    #: noise variance -> the summary's comparisons on the authors' archived runs on the
    #: 71-point grid (``binn_utils.analysis.authors_archive``), or None where none is archived
    authors: Callable | None = None
    shown: tuple = ()                # ``Shown``: its rows of the scorecard's table of what was run
    symbol: str = ""                 # its swept value as math, e.g. "$r$"
    #: claim 12 checks the ground-truth-free diagnostics at its ``paper_failures`` and its default
    diagnosed: bool = False
    #: chapter parameters -> the runs the chapter loads, by part: {part: (scale, settings)}
    chapter_settings: Callable | None = None
    #: (results, summary) -> ``Drawing``: what its Supporting Material figure draws and says
    drawing: Callable | None = None

    @property
    def label(self) -> str:
        """'<heading> (<problem>)', e.g. 'learning rate (Burgers)'."""
        return f"{self.heading or self.title} ({self.problem})"

    def groups(self, scale: str = "book", **overrides) -> tuple:
        """The settings as a tuple of lists, one per part; an override of None keeps the default."""
        out = self.build(scale, **{k: v for k, v in overrides.items() if v is not None})
        return out if isinstance(out, tuple) else (out,)

    def settings(self, scale: str = "book", **overrides) -> list[Setting]:
        """Every setting of the study at ``scale`` (all parts), in order."""
        return [s for part in self.groups(scale, **overrides) for s in part]

    def settings_for_chapter(self, params: Mapping) -> list[Setting]:
        """Every setting the study's chapter loads with parameters ``params`` (a ``scale``
        of None: the committed results' scale): its ``chapter_settings``, or the settings
        built with those parameters that ``build`` takes."""
        if self.chapter_settings is not None:
            return [s for _, part in self.chapter_settings(params).values() for s in part]
        takes = set(inspect.signature(self.build).parameters) - {"scale"}
        kw = {k: v for k, v in params.items() if k in takes}
        if "datasets" in takes and kw.get("datasets") is None:
            kw["datasets"] = main_text_datasets(self.name, params)
        if "distinct_seeds" in takes and kw.get("distinct_seeds") is None and asks_main_text(self.name, params):
            kw["distinct_seeds"] = committed_distinct_seeds(self.name) or None
        return self.settings(params["scale"] or committed_scale(self.name), **kw)

    def settings_on_authors_data(self, params: Mapping) -> list[Setting]:
        """The chapter's main-text settings trained on the authors' rebuilt data, one per
        stored split (``committed_datasets(name, "authors")``), where the parameters ``params`` ask for
        the committed main text (as :func:`main_text_datasets`); [] otherwise."""
        if not committed_datasets(self.name, "authors") or not asks_main_text(self.name, params):
            return []
        takes = set(inspect.signature(self.build).parameters) - {"scale", "datasets", "distinct_seeds"}
        return self.authors_data_settings(committed_scale(self.name), **{k: v for k, v in params.items() if k in takes})

    def authors_data_settings(self, scale: str, **overrides) -> list[Setting]:
        """The study's main-text settings on the authors' rebuilt data as committed: on the
        manifest's splits (``committed_datasets(name, "authors")``), with each split's own seeds
        where the manifest says so (``committed_distinct_seeds``); [] where none is committed."""
        n = committed_datasets(self.name, "authors")
        if not n:
            return []
        return on_data(self.settings(scale, **overrides, datasets=n,
                                     distinct_seeds=committed_distinct_seeds(self.name, "authors") or None), "authors")

    def default_setting(self, results):
        """The result at the paper's default point (None if not among ``results``)."""
        return find(results, **self.default)


def best_in_range(s: Summary, key: str, intervals: dict, paper_best, symbol: str | None = None) -> Verdict:
    """Record "lowest errors for a swept value in ``paper_best`` (a closed range)": the best
    setting in the range against the best outside it (``verdicts.best_in``).  With ``symbol``
    (the swept value's, e.g. "B") also ``<key>_compared`` (``key`` without its "_verdict"): which two settings the verdict
    compares, with their estimates (:func:`compared_words`)."""
    lo, hi = min(paper_best), max(paper_best)
    v, b_in, b_out = best_in(intervals, lambda x: lo * (1 - 1e-9) <= x <= hi * (1 + 1e-9))
    if symbol is not None:
        s[key.removesuffix("_verdict") + "_compared"] = compared_words(intervals, b_in, b_out, symbol)
    return s.compare(key, v, {f"best in {value_label(lo)} to {value_label(hi)} ({value_label(b_in)})"
                              if b_in is not None else "in range": intervals.get(b_in, Interval(np.nan, np.nan, np.nan, 0, np.nan)),
                              f"best outside ({value_label(b_out)})" if b_out is not None else "outside":
                              intervals.get(b_out, Interval(np.nan, np.nan, np.nan, 0, np.nan))})


def in_range_words(lo: str, hi: str, theta: str, up: str) -> str:
    """The two "best in the paper's range" verdicts (:func:`best_in_range`) as one sentence, each
    error named before its verdict (a verdict may carry a parenthesis of its own): "In the
    paper's range, 1e-1 to 1: for $u_\\theta$, agrees; for $u_\\mathrm{p}$, cannot be distinguished."."""
    if theta == up:
        return f"In the paper's range, {lo} to {hi}: for both $u_\\theta$ and $u_\\mathrm{{p}}$, {theta}."
    return f"In the paper's range, {lo} to {hi}: for $u_\\theta$, {theta}; for $u_\\mathrm{{p}}$, {up}."


def compared_words(intervals: dict, b_in, b_out, symbol: str) -> str:
    """The two settings a "best in the range" verdict compares (:func:`best_in_range`) and their
    estimates, named, in plain text (glued into a sentence; at most three numbers a sentence):
    'the best in the paper's range, B = 160, against the best outside it, B = 640. Their errors by
    the median of their 5 datasets' medians (the estimate the verdict compares) are 0.0434 and 0.0415'."""
    if b_in is None:
        return "no setting in the paper's range with a finite error"
    if b_out is None:
        return f"the best in the paper's range, {symbol} = {value_label(b_in)}, with no setting outside it to compare"
    n = max(intervals[b_in].datasets, intervals[b_out].datasets)
    of = f"the median of their {n} datasets' medians" if n > 1 else "the median of their networks"
    return (f"the best in the paper's range, {symbol} = {value_label(b_in)}, against the best outside it, "
            f"{symbol} = {value_label(b_out)}. Their errors by {of} (the estimate the verdict compares) are "
            f"{fmt(intervals[b_in].estimate)} and {fmt(intervals[b_out].estimate)}")


def estimate_words(iv) -> str:
    """What a median's estimate (``verdicts.median_interval``) is, beside a table's median over all
    replicates: "the median of its 3 datasets' medians" (the dataset the unit), else "the median of
    its 30 replicates"."""
    if iv.datasets > 1:
        return f"the median of its {iv.datasets} datasets' medians"
    return f"the median of its {iv.n} replicate{'s' if iv.n != 1 else ''}"


def ratio_words(a, b) -> str:
    """The ratio of two medians ``a`` / ``b`` that a comparison of them is decided on
    (``verdicts.difference``), with its interval and how its runs were paired: '1.06 [1.01, 1.11]
    (the datasets paired)'; 'n/a' without their replicates."""
    c = difference(a, b)
    if c is None or c.scale != "log" or not np.isfinite(c.estimate):
        return "n/a"
    est, lo, hi = c.ratio
    how = " (the same networks paired)" if c.paired else " (the datasets paired)" if c.datasets > 1 else ""
    return f"{fmt(est)} [{fmt(lo)}, {fmt(hi)}]{how}"
