"""The Supporting Material's repeats: one page is one configuration (noise variance, grid)
of the studies the paper repeats, each read at the largest scale stored and compared with
its reference configuration at that scale."""
from __future__ import annotations

from dataclasses import dataclass, fields
from typing import Mapping

from . import reference_configuration, repeated, sweeps
from ..store.loading import largest_stored, load_or_run
from ..store.records import committed_supporting_scales
from .base import Study


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

    def settings(self) -> list:
        """Every setting the page loads."""
        out = []
        for st in self.studies():
            scale, ref = self.scale_of(st), self.reference_of(st)
            for nv, dense in [(self.noise_var, self.dense)] + ([ref] if ref else []):
                out += [s for part in self.groups(st, nv, dense, scale) for s in part]
        return out

    def load(self, st: Study, noise_var, dense: bool, scale: str):
        """The results of ``st`` in one configuration at ``scale`` (a tuple of parts for a study
        whose results come in parts)."""
        parts = tuple(load_or_run(ss, scale, self.source, desc=st.name + (f" ({what})" if i else ""))
                      for i, (ss, what) in enumerate(zip(self.groups(st, noise_var, dense, scale), st.parts)))
        return parts if len(parts) > 1 else parts[0]
