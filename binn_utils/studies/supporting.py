"""The Supporting Material's repeats: one page is one configuration (noise variance, grid)
of the studies the paper repeats, each read at the largest scale stored and compared with
its reference configuration at that scale."""
from __future__ import annotations

from dataclasses import dataclass, fields
from typing import Mapping, Sequence

from . import reference_configuration, repeated, sweeps
from ..analysis.reporting import find, fmt, iqr, median, value_label
from ..analysis.verdicts import Verdict, expect, median_interval, spread_interval
from ..store.loading import largest_stored, load_or_run, missing
from ..store.stores import committed_supporting_scales
from .base import PARAMETER_WORDS, Study


@dataclass(frozen=True)
class Page:
    """One page of the Supporting Material (the notebook's parameters of the same names)."""

    noise_var: float = 0.0
    dense: bool = False
    study: str = "all"                  # "all" (the studies repeated on this grid) or comma-separated names
    scale: str | None = None            # None: the committed repeats' scales, the largest stored first
    fallback_scale: str | None = "lite"
    epochs: int | None = None
    seeds: int | None = None
    compare: bool = True                # also load each study's reference configuration
    source: str | None = None

    @classmethod
    def of(cls, params: Mapping) -> "Page":
        """The page a notebook's parameters describe (other parameters ignored)."""
        return cls(**{f.name: params[f.name] for f in fields(cls) if f.name in params})

    def studies(self) -> list[Study]:
        """The studies the page draws: with ``study="all"`` those the paper repeats on its grid
        (the noise study, which sweeps sigma^2 itself, only on the dense grid)."""
        known = {st.name: st for st in sweeps()}
        wanted = tuple(known) if self.study == "all" else tuple(
            w.strip() for w in str(self.study).split(",") if w.strip())
        if not wanted or any(w not in known for w in wanted):
            raise ValueError(f"study must be 'all' or a comma-separated list of {tuple(known)}, got {self.study!r}")
        return [st for name, st in known.items()
                if name in wanted and (self.study != "all" or st in repeated(self.dense))]

    @property
    def reference(self) -> tuple:
        """(noise variance, dense) of the configuration the page is compared with."""
        return reference_configuration(self.noise_var, self.dense)

    @property
    def is_reference(self) -> bool:
        return (float(self.noise_var), bool(self.dense)) == (float(self.reference[0]), self.reference[1])

    @property
    def expect_lower(self) -> bool:
        """The paper expects lower errors here than in the reference (denser data, less noise)."""
        return bool(self.dense or self.noise_var < self.reference[0])

    def reference_of(self, st: Study) -> tuple | None:
        """(noise variance, dense) ``st`` is compared with on this page (None: no comparison):
        a study that sweeps sigma^2 is compared on the sparse grid, on a dense page only."""
        if not self.compare:
            return None
        if st.sweeps_noise:
            return (self.noise_var, False) if self.dense else None
        return None if self.is_reference else self.reference

    def groups(self, st: Study, noise_var, dense: bool, scale: str) -> tuple:
        """The settings of ``st`` in one configuration at ``scale``, one list per part (a study
        that sweeps sigma^2: all its levels)."""
        return st.groups(scale, noise_var=None if st.sweeps_noise else noise_var, dense=dense, epochs=self.epochs,
                         seeds=self.seeds)

    def scale_of(self, st: Study) -> str:
        """The scale ``st`` is read at on this page: the first of ``scale`` (or the committed
        repeats' scales) and ``fallback_scale`` at which all its settings are stored."""
        scales = (self.scale,) if self.scale else committed_supporting_scales()
        return largest_stored(lambda q: self.groups(st, self.noise_var, self.dense, q),
                                        scales + (self.fallback_scale,), self.source)

    def reference_note(self, st: Study, scale: str) -> str:
        """Where the reference of ``st`` is also stored at a larger scale than ``scale`` (the
        scale of this page's runs, at which it is read: like is compared with like), a
        sentence that says so; else empty."""
        ref = self.reference_of(st)
        scales = (self.scale,) if self.scale else committed_supporting_scales()
        larger = [q for q in scales[:scales.index(scale) if scale in scales else len(scales)]
                  if ref and not missing(self.settings_of(st, *ref, q), q, self.source)]
        return (f"the reference, stored at the {larger[0]} scale too, is read at {scale} like the runs here (like "
                "with like)") if larger else ""

    def settings_of(self, st: Study, noise_var, dense: bool, scale: str) -> list:
        """Every setting of ``st`` in one configuration at ``scale`` (all parts)."""
        return [s for part in self.groups(st, noise_var, dense, scale) for s in part]

    def settings(self) -> list:
        """Every setting the page loads."""
        out = []
        for st in self.studies():
            scale, ref = self.scale_of(st), self.reference_of(st)
            for nv, dense in [(self.noise_var, self.dense)] + ([ref] if ref else []):
                out += self.settings_of(st, nv, dense, scale)
        return out

    def load(self, st: Study, noise_var, dense: bool, scale: str):
        """The results of ``st`` in one configuration at ``scale`` (a tuple of parts for a study
        whose results come in parts)."""
        parts = tuple(load_or_run(ss, scale, self.source, desc=st.name + (f" ({what})" if i else ""))
                      for i, (ss, what) in enumerate(zip(self.groups(st, noise_var, dense, scale), st.parts)))
        return parts if len(parts) > 1 else parts[0]


def scale_runs(scale: str, st) -> str:
    """What ``scale`` trains in the study ``st`` where the Supporting Material repeats it, from
    its settings (``studies.base.SCALES`` through the study's ``build``), e.g. '1000 epochs,
    1 dataset x 3 initialisations'; settings that differ are joined by 'or', and a part
    of the study with a budget of its own (e.g. fixed optimiser steps) follows after '; '."""
    first, *others = st.groups(scale, dense="sparse" not in st.repeated_on)
    runs = sorted({(s.config.epochs, len(set(s.datasets)), len(s.seeds) // len(set(s.datasets)))
                   for s in first}, reverse=True)
    words = " or ".join(f"{ep} epochs, {nd} dataset{'s' if nd > 1 else ''} x {ni} "
                        f"initialisation{'s' if ni > 1 else ''}" for ep, nd, ni in runs)
    for name, part in zip(st.parts[1:], others):
        words += "".join(sorted({f"; {name}: {v:,} {k.replace('budget_', '').replace('_', ' ')}"
                                 for s in part for k, v in s.described}))
    return words


def scale_table(scales: Sequence[str] = ("paper", "lite")) -> str:
    """Markdown table of what each of ``scales`` trains, a row per study the Supporting
    Material repeats (:func:`scale_runs`)."""
    heads = {"paper": "the paper's scale", "lite": "our reduced scale"}
    sts = {s.name: s for s in repeated(False) + repeated(True)}.values()
    rows = [f"| study | {' | '.join(heads.get(sc, sc) for sc in scales)} |", "|---" * (len(scales) + 1) + "|"]
    rows += [f"| {st.title} | {' | '.join(scale_runs(sc, st) for sc in scales)} |" for st in sts]
    return "\n".join(rows)


def compare_configurations(here: dict, reference: dict, expect_lower: bool, sts: dict, scales: Mapping,
                           notes: Mapping | None = None) -> tuple[str, dict]:
    """Markdown table comparing, per study (``sts``: name -> Study), the errors at the paper's
    default setting in this configuration with those in a reference configuration, both read
    at the study's scale (``scales``: name -> scale), and under it a list of the runs each row
    reads (the part of a study in parts, the scale, epochs and replicates of each side;
    ``notes``: name -> a sentence about them); returns (table and list, verdicts: the counts in
    words and the studies of the rows shown)."""
    rows = ["| study | setting | median $u_\\theta$ error here | reference | median $u_\\mathrm{p}$ error here "
            "| reference | IQR of $u_\\mathrm{p}$ error here | reference |", "|---" * 8 + "|"]
    lower, narrower, shown, read = [], [], [], []
    for study, res_here in here.items():
        res_ref, st = reference.get(study), sts[study]
        a = find(res_here, **st.default) if res_here else None
        b = find(res_ref, **st.default) if res_ref else None
        if a is None or b is None:
            continue
        label = ", ".join(f"{PARAMETER_WORDS.get(k, k)} = {value_label(v)}" for k, v in st.default.items())
        th = (median(a.metric("err_u_theta")), median(b.metric("err_u_theta")))
        up = (median(a.metric("err_u_p")), median(b.metric("err_u_p")))
        iq = (iqr(a.metric("err_u_p")), iqr(b.metric("err_u_p")))
        read.append(f"* {st.title}: {runs_read(st, a, b, scales[study], (notes or {}).get(study))}")
        rows.append(f"| {st.title} | {label} | {fmt(th[0])} | {fmt(th[1])} | {fmt(up[0])} | "
                    f"{fmt(up[1])} | {fmt(iq[0], '.2g')} | {fmt(iq[1], '.2g')} |")
        v_med, v_iqr, _ = against_reference(a.metric("err_u_p"), b.metric("err_u_p"), expect_lower, a, b)
        lower.append(v_med)
        narrower.append(v_iqr)
        shown.append(study)

    verdict = {"n": len(lower), "errors_as_expected": expected_words(lower),
               "spread_as_expected": expected_words(narrower), "rows": shown}
    table = "\n".join(rows)
    if read:
        table += "\n\nThe runs each row reads:\n\n" + "\n".join(read)
    return table, verdict


def expected_words(vs: Sequence[Verdict]) -> str:
    """How many of the comparisons ``vs`` went the way the paper expects, with the others
    named only where there are any: 'all 4', '1 of 4 (cannot be distinguished in 3)',
    '2 of 4 (the other way in 1, cannot be distinguished in 1)'."""
    n, agree = len(vs), vs.count(Verdict.AGREES)
    others = [f"{w} in {k}" for w, k in (("the other way", vs.count(Verdict.DISAGREES)),
                                          ("cannot be distinguished", vs.count(Verdict.INDISTINCT))) if k]
    head = f"all {n}" if agree == n and n > 1 else f"{agree} of {n}"
    return head + (f" ({', '.join(others)})" if others else "")


def runs_read(st: Study, here, ref, scale: str, note: str | None = None) -> str:
    """The runs one row of the comparison reads: the part of a study in parts (its first),
    the epochs and replicates of each side (``here``, ``ref``: results, both read at
    ``scale``), and ``note``."""
    def side(r):
        return f"{r.record.config.epochs} epochs, {r.record.replicates} replicates"
    a, b = side(here), side(ref)
    part = f"its {st.parts[0]} part; " if len(st.parts) > 1 else ""
    part += f"scale {scale}: "
    return part + (f"both {a}" if a == b else f"here {a}, reference {b}") + (f"; {note}" if note else "")


def against_reference(here, reference, expect_lower: bool, of_here=None,
                      of_reference=None) -> tuple[Verdict, Verdict, dict]:
    """A configuration's per-replicate errors against the reference configuration's at the
    same setting: (median, IQR) each lower (``expect_lower``) or higher as the paper expects,
    and the four intervals -- the one rule of the Supporting Material pages and of claim 11
    (``of_here``, ``of_reference``: the stored results they come from, whose datasets and
    initialisations the comparison uses)."""
    d = -1 if expect_lower else 1
    ivs = {"median here": median_interval(here, of=of_here), "median, reference": median_interval(reference, of=of_reference),
           "IQR here": spread_interval(here, of=of_here), "IQR, reference": spread_interval(reference, of=of_reference)}
    return (expect(ivs["median here"], ivs["median, reference"], d), expect(ivs["IQR here"], ivs["IQR, reference"], d),
            ivs)
