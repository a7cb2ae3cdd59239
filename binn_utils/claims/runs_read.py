"""The table of what was run, beyond the rows of the figures and of the Supporting Material
repeats (``scorecard.runs``): every further configuration the chapters read -- Fig. 1 on one
dataset, on the other grid and with the three readings of the reaction term, the printed
Fig. 2's network on the 351-point grid, each study's runs on the authors' data, the default
hyperparameters on every benchmark, the Supporting Material's reference configuration -- and the fits
of the scratch assay and of the own-data page, each read from the store; and how many stored
runs no row names (the book does not read them), by benchmark."""
from __future__ import annotations

from pathlib import Path

from ..engine.problems import BENCHMARK_NAMES
from ..store.fits import stored_fit_facts
from ..store.loading import largest_stored, missing
from ..store.stores import committed_datasets, default_results_dir
from ..studies import REGISTRY, SCALES, framework, noise, reference_configuration, repeated
from .context import RunRow, run_row

#: The framework chapter's parts beyond its shown run and its other initial condition (rows of
#: their own), in words.
FRAMEWORK_PARTS = {"one dataset": "Fig. 1 on one dataset (the comparisons made on one)",
                   "other grid": "Fig. 1 on the 351-point grid",
                   "reactions": "Fig. 1, the three readings of the reaction term"}
#: The committed fits: the store's folder, and the row's words (results, data).
FITS = {"scratch": ("Scratch assay: the BINN fit", "the scratch-assay data (Jin et al.)"),
        "own_data": ("Fit your own data: the example fit", "the example data")}


def chapter_parameters(ctx) -> dict:
    """The chapters' default parameters, at the context's scale (None: the committed ones)."""
    return dict(scale=ctx.fixed_scale, noise_var=None, dense=False, epochs=None, seeds=None, reaction="supporting",
                initial="code", compare_initial=True, compare_grid=True, compare_reactions=True, reaction_scale=None)


def loaded(ctx, settings, scale: str, what: str):
    """The stored results of ``settings`` (None where some are not stored: never trained here)."""
    try:
        return ctx.load(settings, scale, what, chapter_default=False)
    except RuntimeError:
        return None


def chapter_rows(ctx) -> list[RunRow]:
    """The further configurations the chapters read, each from the store."""
    params, out = chapter_parameters(ctx), []
    for part, (scale, settings) in framework.chapter_settings(params).items():
        if part in FRAMEWORK_PARTS and settings:
            out.append(run_row(FRAMEWORK_PARTS[part], settings, loaded(ctx, settings, scale, part), (scale,)))
    dense = noise.printed_grid_settings(params)
    if dense:
        scale = ctx.scale("noise")
        out.append(run_row("Fig. 2 as printed: the (4, 32) network on the 351-point grid", dense,
                           loaded(ctx, dense, scale, "noise, 351 points"), (scale,)))
    out += default_rows(ctx)
    for st in REGISTRY.values():
        if not ctx.fixed_scale and committed_datasets(st.name, "authors"):
            scale = ctx.scale(st.name)
            settings = st.authors_data_settings(scale)
            out.append(run_row(f"{st.title[0].upper()}{st.title[1:]}, on the authors' data", settings,
                               loaded(ctx, settings, scale, f"{st.title} (authors' data)"), (scale,)))
    return out


def reference_rows(ctx) -> list[RunRow]:
    """The configuration the noise-free and high-noise repeats are compared with (the main text's
    noise level on the 71-point grid, on one dataset as every repeat), per study, at the largest
    scale stored, as the Supporting Material pages read it."""
    nv, dense = reference_configuration(0.0, False)
    out = []
    for st in repeated(dense=False):
        got = ctx.repeat(st.name, nv, dense)
        scales = (got[1],) if got else ctx.supporting_scales()
        settings = [s for part in ctx.repeat_settings(st.name, nv, dense, scales[0]) for s in part]
        out.append(run_row(f"Supporting Material, {st.title}: the reference configuration", settings,
                           got and got[0], scales))
    for st in (s for s in repeated(dense=True) if s.sweeps_noise):   # its dense repeat's, at the same scale
        dense_got = ctx.repeat(st.name, None, True)
        scale = dense_got[1] if dense_got else ctx.supporting_scales()[0]
        got = ctx.repeat(st.name, None, False, at=scale)
        settings = [s for part in ctx.repeat_settings(st.name, None, False, scale) for s in part]
        out.append(run_row(f"Supporting Material, {st.title}: the 71-point reference of the dense repeat", settings,
                           got and got[0], (scale,)))
    return out


def default_rows(ctx) -> list[RunRow]:
    """The default-hyperparameter runs of every benchmark the framework chapter's table of what
    the data constrain reads, one row per grid: those stored, at the largest scale stored."""
    st, out = REGISTRY["defaults"], []
    scale = ctx.fixed_scale or largest_stored(lambda q: st.settings(q), ("paper", "book", "lite"), ctx.source)
    for dense in (False, True):
        todo = st.settings(scale, dense=dense)
        stored = [s for s in todo if s not in missing(todo, scale, ctx.source)]
        if stored:
            which = "every benchmark" if len(stored) == len(todo) else f"{len(stored)} of the {len(todo)} benchmarks"
            out.append(run_row(f"Default hyperparameters on {which} (the framework chapter's table of what the "
                               "data constrain)", stored,
                               loaded(ctx, stored, scale, "defaults"), (scale,)))
    return out


def scale_of_fit(epochs: int, initialisations: int) -> str:
    """The training scale whose epochs and initialisations a fit ran with (``studies.SCALES``),
    the largest first; '–' where none matches."""
    return next((name for name in ("paper", "book", "lite", "quick")
                 if SCALES[name]["epochs"] == epochs and SCALES[name]["seeds"] == initialisations), "–")


def fit_rows(store: Path | None = None) -> list[RunRow]:
    """One row per committed fit (the scratch assay's, the own-data page's), from its record."""
    store, out = Path(store or default_results_dir()), []
    for folder, (what, data) in FITS.items():
        for js in sorted((store / folder).glob("*.json")):
            facts = stored_fit_facts(js)
            if facts is None:
                continue
            epochs, n, device = facts
            out.append(RunRow(what, (scale_of_fit(epochs, n),), (), False, (epochs,), ((1, n),), (device,),
                              ("BDF",), data=data))
    return out


def stored_keys(store: Path | None = None) -> dict:
    """The settings' keys the committed store holds (``runs/``), by benchmark."""
    out: dict = {}
    for js in sorted((Path(store or default_results_dir()) / "runs").glob("*.json")):
        bench = next((b for b in sorted(BENCHMARK_NAMES, key=len, reverse=True) if js.stem.startswith(b + "-")),
                     js.stem.rsplit("-", 1)[0])
        out.setdefault(bench, set()).add(js.stem)
    return out


def unnamed(rows: list[RunRow], store: Path | None = None) -> dict:
    """{benchmark: the number of its stored settings no row of ``rows`` names} (benchmarks with
    none left out): the runs the committed store holds that the book does not read."""
    named = {k for r in rows for k in r.keys}
    return {bench: len(keys - named) for bench, keys in sorted(stored_keys(store).items()) if keys - named}


def unnamed_words(rows: list[RunRow], store: Path | None = None) -> str:
    """The sentence under the table of what was run on the stored settings no row names;
    empty where there are none."""
    n = sum(unnamed(rows, store).values())
    return (f"The committed store also holds {n:,} further setting{'s' if n > 1 else ''} that no row names; "
            "the book does not read them." if n else "")
