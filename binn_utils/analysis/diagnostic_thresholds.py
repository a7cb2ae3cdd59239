"""The thresholds of the ground-truth-free diagnostics (``diagnostics``), one documented
constant each, and the :class:`Thresholds` a diagnosis uses.

Each constant's docstring says why it has its value.  The nine that decide a flag (the
fields of :class:`Thresholds`) may be changed for one calculation: ``thresholds(SPREAD_CV=0.5)``
is the module's thresholds with that one changed, passed to ``diagnostics.diagnose(...,
thresholds=...)``; a calibration searches :data:`CANDIDATES` of them.  The others describe
how a number is measured, not where a flag starts.
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass

import numpy as np

TAIL_FRACTION = 0.1
"""The "end of training" examined by the under-fitting diagnostic: the last 10% of epochs."""

UNDERFIT_TAIL_FRACTION = 0.05
"""Flag under-fitting when the last 10% of epochs delivered more than 5% of the total
log10 decrease of the (median) validation loss.

A curve still falling at a steady rate (straight in log loss against epoch, the paper's
r = 5e-7 regime: "decreases only slowly throughout training") puts 10% of its decrease in
the last 10% of epochs; a curve that has levelled off puts ~0% there; an Adam curve that
decays like a power law of the epoch, L ~ e^-a, puts log10(1/0.9) / log10(E), i.e. 1.3%
(E = 4000) to 1.7% (E = 600) there.  5% sits between "converging" and "steady descent".
Measured on 600-epoch diffusion runs: 2-3% at r = 5e-4, 9-100% at r = 5e-7."""

UNDERFIT_TAIL_DECADES = 0.1
"""Also flag under-fitting when the median validation loss fell by more than 0.1 decades
(a factor 1.26) over the last 10% of epochs, however large the earlier decrease: training
longer would still lower the loss by more than 20%."""

INSTABILITY_ROUGHNESS = 0.1
"""Flag instability when the standard deviation of successive differences of log10 of
the validation loss over the second half of training exceeds 0.1 decades (typical
jumps of ~25% between recorded epochs), median over replicates.

Smooth convergence at r = 5e-4 gave 0.027-0.03 (0.03-0.06 at w_PDE = 1e3), the unstable
r = 5e-2 regime ("the validation losses cease to decrease smoothly") 0.14-0.17.  For a
curve stored every k-th epoch, fluctuations that are independent from epoch to epoch give
the same value, so stored (downsampled) and live curves are comparable."""

MEAN_FIT_RATIO = 0.98
"""A replicate has *collapsed* (flagged as under-fitting) when its u_theta misses the
observations by at least 0.98 times as much (relative L2) as their mean does, i.e. it
explains less than 4% of their variance: a constant network, or one no better than a
constant.  It has *blown up* (flagged as instability) when its validation data loss at
the end is at least 0.98^2 times the variance of its observations (the mean's squared
error) and ``BLOWUP_FACTOR`` times its own minimum: the final networks lost a fit they
had.

Measured on the committed runs (best-validation networks): every run that trained stayed
at or below 0.94 (Burgers at r = 5e-6 after 1000 epochs 0.91-0.94; the nonlinear ADR at
its defaults, whose bumps of height 0.1 barely exceed the noise, 0.90-0.91; diffusion at
sigma^2 = 5e-2, 0.89), while the Burgers runs at r = 5e-1, whose networks collapse to a
constant, gave 0.9999-1.19 and those at r = 5e-7 1.14-1.93.  (The ratio of the final
to the minimum validation loss alone does not separate failures: noise-free diffusion at
r = 5e-4 ends 700 times above its minimum, at a data loss far below the data's variance.)"""

BLOWUP_FACTOR = 5.0
"""... a blow-up also needs the validation data loss at the end to be at least 5 times its
minimum.  With noise-dominated data the validation data loss cannot fall far below the
data's variance, and over-fitting alone lifts it back by less: diffusion at sigma^2 =
5e-2 (noise 57% of the variance) ended 1.4-1.9 times its minimum, at the variance; the
nonlinear ADR at its defaults 1.1 times.  The Burgers runs at r = 5e-2 that lost their
fit ended 2.4-780 times (median about 30) above their minimum."""

OVERFIT_FACTOR = 1.5
"""Flag over-fitting when the final validation loss exceeds its minimum by more than a
factor 1.5 (both on the median curve smoothed over 5% of its points, so single noisy
epochs do not count) ..."""

OVERFIT_MIN_BEFORE = 0.8
"""... and the minimum was reached before 80% of training: the loss went down and then
came back up (the paper's late-epoch increase for sigma^2 = 0.05), rather than merely
fluctuating at the end."""

MISMATCH_RATIO = 2.0
"""Flag a mechanistic mismatch when err(u_p, obs) / err(u_theta, obs) > 2 (median over
replicates).  Both errors are measured against the same noisy observations and so share
the noise floor: if u_theta follows the latent solution, the ratio is ~ sqrt(1 + d^2/e^2)
where d is the distance between u_p and u_theta and e the scatter of the data about
u_theta; a ratio of 2 means the forward solve departs from the learned solution by ~1.7x
the data's own scatter, a visible systematic misfit (the paper: good u_theta with poor
u_p "indicates that the BINN has learned to interpolate the observations without
recovering the correct governing operator").  Smooth runs gave 0.94-1.02, the unstable
r = 5e-2 runs 2.2-5.8."""

MISMATCH_MIN_ERROR = 0.01
"""... provided err(u_p, obs) (median) exceeds 1%: with (nearly) noise-free data both
errors are tiny and their ratio is not informative; a u_p within 1% of the data in
relative L2 is indistinguishable from it on a plot."""

SPREAD_CV = 0.25
"""Flag operator spread when, for some learned operator, the median over the observed u
range of std / |mean| across initialisations exceeds 0.25: the +-1 standard deviation
band is wider than half the operator's value over a typical part of the range.
Converged diffusion runs gave 0.07 (0.14 at w_PDE = 1e3), the unstable r = 5e-2 runs 0.97."""

SPREAD_FLOOR = 0.1
"""The |mean| in the coefficient of variation is floored at 10% of the RMS of the mean
curve over the observed range, so that an operator crossing zero (e.g. V(u) = u(1 - u)
near u = 0 and 1) does not produce an infinite coefficient of variation there."""

BALANCE_MIN = 1e-3
"""Flag a loss imbalance when w_PDE L_PDE / (w_data L_data) < 1e-3: the PDE residual has
(almost) no influence on the optimisation (the paper: at w_PDE = 1e-4 "the weighted PDE
residual remains more than three orders of magnitude smaller than the weighted data
loss", and D is not recovered).  Defaults (w_PDE = 0.1) gave 5e-3 - 2e-2, w_PDE = 1e-4
gave 1e-5 - 1e-4."""

BALANCE_MAX = 1e1
"""... or when it is > 10: the PDE term dominates the objective and the data loss is not
"at least as influential" as the PDE residual (the paper's w_data >~ w_PDE rule)."""

WEIGHT_RATIO_MAX = 1.0
"""... or when the weights themselves break the paper's rule w_data >~ w_PDE, i.e.
w_PDE / w_data > 1.  (A strongly over-weighted PDE term is driven to a small residual, so
the *weighted* ratio alone does not reveal it: w_PDE = 1e3 gave a weighted ratio of only
0.2-0.3 in our runs, while the data were fitted three times worse.)  The weights are
meaningful relative to the paper's scales; ``binn_utils.analysis.user_data`` rescales user data
to those scales."""

RANGE_QUANTILES = (0.005, 0.995)
"""The observed range of u is taken between the 0.5% and 99.5% quantiles of all
observations (not the raw min and max), so that a few noise outliers do not widen the
range over which operators are considered identifiable."""

END_WINDOW = 0.05
"""End-of-training values (for loss balance and the over-fitting smoother) are medians /
means over the last 5% of recorded points (at least one)."""

SPREAD_POINTS = 101

DIAGNOSTIC_NAMES = ("underfitting", "instability", "overfitting", "mechanistic_mismatch",
                    "operator_spread", "loss_balance")


@dataclass(frozen=True)
class Thresholds:
    """The flag thresholds of the diagnostics that a calibration may change: each field is
    the module constant of the same name in capitals (its default)."""

    underfit_tail_fraction: float = UNDERFIT_TAIL_FRACTION
    underfit_tail_decades: float = UNDERFIT_TAIL_DECADES
    instability_roughness: float = INSTABILITY_ROUGHNESS
    overfit_factor: float = OVERFIT_FACTOR
    mismatch_ratio: float = MISMATCH_RATIO
    spread_cv: float = SPREAD_CV
    balance_min: float = BALANCE_MIN
    balance_max: float = BALANCE_MAX
    weight_ratio_max: float = WEIGHT_RATIO_MAX

    def as_dict(self) -> dict:
        """{constant name: value}, e.g. {"SPREAD_CV": 0.25, ...}."""
        return {f.name.upper(): getattr(self, f.name) for f in dataclasses.fields(self)}


#: The module's thresholds (the constants above).
DEFAULT_THRESHOLDS = Thresholds()
#: The names of the thresholds a calibration may change (the constants' names).
THRESHOLD_NAMES = tuple(DEFAULT_THRESHOLDS.as_dict())


def thresholds(**values) -> Thresholds:
    """The module's thresholds with some changed, by their constant names, e.g.
    ``thresholds(SPREAD_CV=0.5)``; unknown names and values that are not numbers > 0 are errors."""
    unknown = set(values) - set(THRESHOLD_NAMES)
    if unknown:
        raise ValueError(f"unknown threshold(s) {sorted(unknown)}; choose from {THRESHOLD_NAMES}")
    for k, v in values.items():
        if not isinstance(v, (int, float, np.integer, np.floating)) or not v > 0:
            raise ValueError(f"threshold {k} must be a number > 0, got {v!r}")
    return dataclasses.replace(DEFAULT_THRESHOLDS, **{k.lower(): float(v) for k, v in values.items()})


#: Candidate thresholds of each diagnostic searched by ``diagnostic_calibration.choose_thresholds`` (the
#: module's defaults first).  Each candidate sets the named thresholds together (:func:`thresholds`).
CANDIDATES = {
    "underfitting": [dict(UNDERFIT_TAIL_FRACTION=0.05 * f, UNDERFIT_TAIL_DECADES=0.1 * f) for f in (1, 2, 4, 8)],
    "instability": [dict(INSTABILITY_ROUGHNESS=v) for v in (0.1, 0.15, 0.2, 0.3, 0.5)],
    "overfitting": [dict(OVERFIT_FACTOR=v) for v in (1.5, 2.0, 3.0, 5.0)],
    "mechanistic_mismatch": [dict(MISMATCH_RATIO=v) for v in (2.0, 1.5, 2.5, 3.0, 5.0)],
    "operator_spread": [dict(SPREAD_CV=v) for v in (0.25, 0.35, 0.5, 0.75, 1.0)],
    "loss_balance": [dict(BALANCE_MIN=lo, BALANCE_MAX=hi, WEIGHT_RATIO_MAX=w)
                     for lo, hi, w in ((1e-3, 1e1, 1.0), (1e-4, 1e1, 1.0), (1e-3, 1e2, 1e2), (1e-4, 1e2, 1e2),
                                       (1e-3, 1e3, 1e3), (1e-4, 1e3, 1e3))],
}
