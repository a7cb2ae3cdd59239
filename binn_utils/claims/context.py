"""Where the scorecard's claims read their results: :class:`Context`.

A claim's check (``verdicts.Claim.check``) reads results only through a context:

* ``ctx.study(name)``: a study's results at its scale (a tuple of lists for a study in parts);
* ``ctx.variant(name, desc, scale=None, **overrides)``: a study's settings with overrides;
* ``ctx.scale(name)``: the scale a study is read at;
* ``ctx.run(result, name, **kw)``: what was run, in words, for the evidence.

Each raises ``RuntimeError`` when the results are not stored and may not be trained.  The
claims that span studies (``spanning``) also read the Supporting Material repeats
(``ctx.repeat``, ``ctx.repeat_settings``, ``ctx.supporting_scales``) and single settings
(``ctx.load``).  A test's fake context overrides these (``tests/test_scorecard.py``).
"""
from __future__ import annotations

from dataclasses import dataclass

from ..analysis import reporting
from ..store import loading, stores
from ..store.stores import require_stored
from ..studies import batch_size, get


def described(settings, scale: str) -> str:
    """'*<scale>* scale: E epochs, R replicates' of ``settings`` (stored or not)."""
    s = settings[0]
    return f"*{scale}* scale: {s.config.epochs} epochs, {len(s.seeds)} replicates"


def flat(results) -> list:
    """The results of a study, its parts joined."""
    return [r for part in (results if isinstance(results, tuple) else (results,)) for r in part]


class Context:
    """Each study's results at the scale of its committed results (``results/manifest.json``),
    or every study at ``scale``; read from ``source`` (None: the committed store, then
    the working store).  ``train``: None trains missing settings only at the quick scale and
    only the chapters' default configurations; False never; True everything missing."""

    def __init__(self, scale: str | None = None, train: bool | None = None, source=None):
        self.fixed_scale, self.train, self.source = scale, train, source
        self._studies: dict = {}

    def scale(self, name: str) -> str:
        return self.fixed_scale or stores.committed_scale(name)

    def supporting_scales(self) -> tuple:
        """Scales to read the Supporting Material repeats at, the largest stored first."""
        return (self.fixed_scale,) if self.fixed_scale else stores.committed_supporting_scales()

    def may_train(self, chapter_default: bool = True) -> bool:
        if self.train is None:
            return self.fixed_scale == "quick" and chapter_default
        return bool(self.train)

    def load(self, settings, scale: str, desc: str, chapter_default: bool = True) -> list:
        """Stored results of ``settings`` (RuntimeError if some are missing and may not be trained)."""
        missing = loading.missing(settings, scale, self.source)
        if missing and (not self.may_train(chapter_default) or require_stored()):
            raise RuntimeError(f"{len(missing)} of {len(settings)} settings of the {desc} "
                               f"({described(settings, scale)}) are not in the results store")
        return loading.load_or_run(settings, scale, self.source, desc=desc)

    def _parts(self, groups, scale, desc, what, chapter_default=True):
        parts = tuple(self.load(ss, scale, desc + (f" ({w})" if i else ""), chapter_default)
                      for i, (ss, w) in enumerate(zip(groups, what)))
        return parts if len(parts) > 1 else parts[0]

    def study(self, name: str):
        """Results of study ``name`` at its scale (loaded once)."""
        if name not in self._studies:
            st, scale = get(name), self.scale(name)
            datasets = self.datasets(name)
            distinct = None if self.fixed_scale else (stores.committed_distinct_seeds(name) or None)
            try:
                self._studies[name] = self._parts(st.groups(scale, datasets=datasets, distinct_seeds=distinct), scale,
                                                  f"{st.title} study", st.parts)
            except RuntimeError as err:
                self._studies[name] = err
        if isinstance(self._studies[name], RuntimeError):
            raise self._studies[name]
        return self._studies[name]

    def datasets(self, name: str) -> int | None:
        """The datasets of study ``name``'s committed main text (the manifest's), read at the
        committed scales; None (the study's own) with a fixed scale."""
        return None if self.fixed_scale else stores.committed_datasets(name)

    def variant(self, name: str, desc: str, scale: str | None = None, **overrides) -> list:
        """Results of study ``name``'s settings with ``overrides`` (all parts), at ``scale``
        (default: the study's)."""
        scale = scale or self.scale(name)
        return self.load(get(name).settings(scale, **overrides), scale, desc)

    def benchmark(self, name: str) -> dict:
        """A committed benchmark's figures: "batch_size_timing" (``studies.batch_size.timing``)."""
        if name != "batch_size_timing":
            raise ValueError(f"unknown benchmark {name!r}")
        return batch_size.timing()

    def run(self, res, name: str, **kw) -> str:
        """What one stored setting of study ``name`` ran: its scale and ``reporting.run_description``."""
        return f"*{self.scale(name)}* scale: {reporting.run_description(res, **kw)}"

    def repeat_settings(self, name: str, noise_var, dense: bool, scale: str) -> tuple:
        """The settings (one list per part) of a Supporting Material repeat of study ``name``
        (``noise_var`` None, or any, for a study that sweeps the noise)."""
        st = get(name)
        return st.groups(scale, noise_var=None if st.sweeps_noise else noise_var, dense=dense)

    def repeat(self, name: str, noise_var, dense: bool, at: str | None = None):
        """(results, scale) of a Supporting Material repeat at the largest scale stored
        (``at``: that scale only); None if none is.  Only the configurations the chapters
        run by default (the noise-free sparse repeat, and the noise study on the sparse
        grid) may be trained."""
        st = get(name)
        chapter_default = (not dense) and (st.sweeps_noise or noise_var == 0.0)
        for scale in ((at,) if at else self.supporting_scales()):
            try:
                return self._parts(self.repeat_settings(name, noise_var, dense, scale), scale, f"{name} repeat",
                                   st.parts, chapter_default), scale
            except RuntimeError:
                continue
        return None


@dataclass(frozen=True)
class RunRow:
    """One row of the table of what was run: which results, at which scale(s), and for each
    setting stored its epochs, (datasets, initialisations), device and u_p integrator
    (all empty when the results are not stored)."""

    what: str
    scales: tuple[str, ...]
    noise_vars: tuple[float, ...]   # the noise levels of its settings
    dense: bool
    epochs: tuple[int, ...] = ()
    replicates: tuple[tuple[int, int], ...] = ()
    devices: tuple[str, ...] = ()
    solvers: tuple[str, ...] = ()
    data: str = ""                  # the data in words where they are not the benchmark's (a fit's)
    keys: tuple[str, ...] = ()      # the stored names of its settings

    @property
    def stored(self) -> bool:
        return bool(self.epochs)


def run_row(what: str, settings: list, results, scales: tuple) -> RunRow:
    """The row of ``settings`` (a flat list), with their stored ``results`` (None: not stored)."""
    recs = [r.record for r in flat(results)] if results is not None else []
    datasets = [len(set(rec.datasets)) for rec in recs]
    return RunRow(what, tuple(scales), tuple(sorted({float(s.noise_var) for s in settings})), bool(settings[0].dense),
                  tuple(rec.epochs_run for rec in recs),
                  tuple((d, rec.replicates // max(d, 1)) for d, rec in zip(datasets, recs)),
                  tuple(rec.device or "cpu" for rec in recs),
                  tuple(rec.forward_method or "RK45" for rec in recs), keys=tuple(r.setting.key for r in flat(results)) if results is not None
                  else tuple(s.key for s in settings))
