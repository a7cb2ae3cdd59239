"""Your own observations' units and the training domain: the positive affine change of
variables between them (:class:`Scaling`, derived in ``user_observations``) and the
mechanisms a model may learn."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

TRAIN_X_RANGE = (-7.0, 7.0)
"""Training-domain positions: the paper's x in [-7, 7]."""

TRAIN_T_END = 10.0
"""Training-domain times [0, 10]: the middle of the paper's benchmark windows (t_end = 4, 10, 18)."""

MECHANISMS = {"D": "diffusion D(u)", "V": "advection V(u)", "G": "reaction G(u)"}

#: the status of a forward solve sound in training units whose u_p the data's units cannot hold
UNREPRESENTABLE = "failed: u_p is beyond double precision in the data's units"


@dataclass(frozen=True)
class Scaling:
    """Positive affine map between user units and the training domain (module docstring).

    x' = x0_train + x_factor (x - x_min);  t' = t_factor (t - t_min);  u' = u / u_factor.
    """

    x_min: float
    x_factor: float
    t_min: float
    t_factor: float
    u_factor: float
    x0_train: float = TRAIN_X_RANGE[0]

    def __post_init__(self):
        tiny = np.finfo(float).tiny
        for name in ("x_factor", "t_factor", "u_factor"):
            v = getattr(self, name)
            if not (np.isfinite(v) and v >= tiny and np.isfinite(1.0 / v)):
                raise ValueError(f"scale factor {name} must be a finite number > 0 whose inverse is finite, "
                                 f"got {v!r}: express {name[0]} in other units")
        # the operators' conversion factors (operator_factor) must be representable too
        la, lb = np.log10(self.x_factor), np.log10(self.t_factor)
        for name, lg in (("D", lb - 2 * la), ("V", lb - la), ("G", lb)):
            if not -300 < lg < 300:
                raise ValueError(
                    f"these units cannot be rescaled: converting {MECHANISMS[name]} back to them needs "
                    f"the factor 10^{lg:.0f}, beyond the range of floating-point numbers (x spans about "
                    f"{(TRAIN_X_RANGE[1] - TRAIN_X_RANGE[0]) / self.x_factor:.3g} and t about "
                    f"{TRAIN_T_END / self.t_factor:.3g} of your units); express x and t in other units")

    @classmethod
    def fit(cls, x, t, u, x_range=TRAIN_X_RANGE, t_end=TRAIN_T_END, u_scale=None) -> "Scaling":
        """The map taking [min x, max x] to ``x_range``, [min t, max t] to [0, t_end], u to u / max|u|."""
        x, t, u = (np.asarray(v, dtype=float) for v in (x, t, u))
        (x0, x1), (t0, t1) = (x.min(), x.max()), (t.min(), t.max())
        if not x1 > x0:
            raise ValueError("x takes a single value; need at least 3 positions")
        if not t1 > t0:
            raise ValueError("t takes a single value; need at least 2 times")

        lo, hi = (float(v) for v in x_range)
        if not hi > lo:
            raise ValueError(f"x_range must be increasing, got {x_range}")
        if not t_end > 0:
            raise ValueError(f"t_end must be > 0, got {t_end}")
        c = float(np.max(np.abs(u))) if u_scale is None else float(u_scale)
        return cls(x_min=float(x0), x_factor=(hi - lo) / float(x1 - x0), t_min=float(t0),
                   t_factor=float(t_end) / float(t1 - t0), u_factor=c, x0_train=lo)

    # variables
    def x_to_train(self, x):
        return self.x0_train + self.x_factor * (np.asarray(x, dtype=float) - self.x_min)

    def x_to_user(self, xp):
        return self.x_min + (np.asarray(xp, dtype=float) - self.x0_train) / self.x_factor

    def t_to_train(self, t):
        return self.t_factor * (np.asarray(t, dtype=float) - self.t_min)

    def t_to_user(self, tp):
        return self.t_min + np.asarray(tp, dtype=float) / self.t_factor

    def u_to_train(self, u):
        return np.asarray(u, dtype=float) / self.u_factor

    def u_to_user(self, up):
        return np.asarray(up, dtype=float) * self.u_factor

    def holds_in_user_units(self, up) -> bool:
        """Whether u' ``up`` stays finite in the user's units (``up * u_factor`` overflows where
        the data lie near 1e308): where not, a solve sound in training units is ``UNREPRESENTABLE``."""
        with np.errstate(over="ignore"):
            return bool(np.all(np.isfinite(self.u_to_user(up))))

    # operators
    def operator_factor(self, name: str) -> float:
        """f_user(u) = factor * f_train(u / u_factor): b/a^2 for D, b/a for V, b for G."""
        a, b = self.x_factor, self.t_factor
        factors = {"D": b / a / a, "V": b / a, "G": b}
        if name not in factors:
            raise ValueError(f"unknown operator {name!r}; choose one of D, V, G")
        return factors[name]

    def operator_to_user(self, name: str, f_train):
        """The user-unit operator u -> factor * f_train(u / u_factor), as a callable."""
        k, c = self.operator_factor(name), self.u_factor

        def f_user(u):
            u = np.asarray(u, dtype=float)
            return k * np.asarray(f_train(u / c), dtype=float)
        f_user.__name__ = f"{name}_user"
        return f_user

    def operator_to_train(self, name: str, f_user):
        """The inverse map: u' -> f_user(u_factor u') / factor."""
        k, c = self.operator_factor(name), self.u_factor

        def f_train(up):
            up = np.asarray(up, dtype=float)
            return np.asarray(f_user(c * up), dtype=float) / k
        f_train.__name__ = f"{name}_train"
        return f_train

    def to_dict(self) -> dict:
        return {k: float(getattr(self, k)) for k in ("x_min", "x_factor", "t_min", "t_factor",
                                                     "u_factor", "x0_train")}


def validate_mechanisms(mechanisms) -> tuple:
    """A non-empty subset of D, V, G (a string like "DV" or a sequence), in D, V, G order."""
    if isinstance(mechanisms, str):
        items = mechanisms.replace(",", " ").split()
        if len(items) == 1 and items[0] not in MECHANISMS:
            if not set(items[0]) <= set(MECHANISMS):
                raise ValueError(f"unknown mechanism(s) {mechanisms!r}: choose a non-empty subset of "
                                 "D (diffusion), V (advection), G (reaction), e.g. 'DV'")
            items = list(items[0])
    else:
        try:
            items = list(mechanisms)
        except TypeError:
            raise ValueError(f"mechanisms must be a non-empty subset of D, V, G, got {mechanisms!r}") from None
    if not items:
        raise ValueError("mechanisms is empty: choose a non-empty subset of D (diffusion), "
                         "V (advection), G (reaction)")
    for m in items:
        if m not in MECHANISMS:
            raise ValueError(f"unknown mechanism {m!r}: choose a non-empty subset of D (diffusion), "
                             "V (advection), G (reaction)")
    twice = sorted({m for m in items if items.count(m) > 1})
    if twice:
        raise ValueError(f"mechanism(s) {', '.join(twice)} named twice in {mechanisms!r}: name each once")
    return tuple(m for m in ("D", "V", "G") if m in items)
