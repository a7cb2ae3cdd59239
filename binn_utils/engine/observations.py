"""Synthetic noisy observations of a benchmark (paper Eq. noise) and the 80:10:10 split.

``u_o(x_i, t_i) = u(x_i, t_i) + N(0, sigma^2)`` on the sparse (71-node) or dense
(351-node) grid at the benchmark's observation times.  A dataset is identified by
(benchmark, dense, dataset index): its standard-normal draw ``z`` is fixed by those, and
``u_o = u + sigma z`` for every variance, so noise levels of one dataset share their
random numbers (common random numbers make the noise study's comparisons sharper).
"""
from __future__ import annotations

import zlib
from dataclasses import dataclass, field

import numpy as np

NOISE_VARIANCES = (0.0, 1e-3, 5e-3, 1e-2, 5e-2)
#: The paper's default observation noise variance (main text).
DEFAULT_NOISE_VAR = 1e-3
SPLIT_FRACTIONS = (0.8, 0.1, 0.1)


def stable_int(*parts) -> int:
    return zlib.crc32("|".join(map(str, parts)).encode())


@dataclass
class Observations:
    """Observed data on a (t, x) grid with a train/validation/test split.

    ``u_clean`` is the noise-free solution (None for real data); ``u_obs`` what the BINN sees.
    Flattened points are ordered time-major: index = i_t * n_x + i_x.
    """

    name: str
    x: np.ndarray
    t: np.ndarray
    u_obs: np.ndarray
    u_clean: np.ndarray | None = None
    noise_var: float = 0.0
    dataset: int = 0
    dense: bool = False
    split_seed: int = 0
    x_range: tuple[float, float] | None = None
    t_range: tuple[float, float] | None = None
    train_idx: np.ndarray = field(default=None, repr=False)
    val_idx: np.ndarray = field(default=None, repr=False)
    test_idx: np.ndarray = field(default=None, repr=False)

    def __post_init__(self):
        self.x = np.asarray(self.x, dtype=np.float64)
        self.t = np.asarray(self.t, dtype=np.float64)
        self.u_obs = np.asarray(self.u_obs, dtype=np.float64)
        if self.u_obs.shape != (self.t.size, self.x.size):
            raise ValueError(f"u_obs has shape {self.u_obs.shape}, expected (n_t, n_x) = "
                             f"{(self.t.size, self.x.size)}")
        if not np.all(np.isfinite(self.u_obs)):
            bad = np.argwhere(~np.isfinite(self.u_obs))[0]
            raise ValueError(f"observations contain NaN/inf (first at t={self.t[bad[0]]}, x={self.x[bad[1]]})")
        if self.x_range is None:
            self.x_range = (float(self.x.min()), float(self.x.max()))
        if self.t_range is None:
            self.t_range = (float(self.t.min()), float(self.t.max()))
        if self.train_idx is None:
            self.train_idx, self.val_idx, self.test_idx = split_indices(self.u_obs.size, self.split_seed)

    @property
    def n_points(self) -> int:
        return self.u_obs.size

    def points(self, which: str = "all") -> np.ndarray:
        """(N, 3) array of [x, t, u_obs] for 'all', 'train', 'val' or 'test'."""
        T, X = np.meshgrid(self.t, self.x, indexing="ij")
        pts = np.stack([X.ravel(), T.ravel(), self.u_obs.ravel()], axis=1)
        if which == "all":
            return pts
        idx = {"train": self.train_idx, "val": self.val_idx, "test": self.test_idx}.get(which)
        if idx is None:
            raise ValueError(f"which must be 'all', 'train', 'val' or 'test', got {which!r}")
        return pts[idx]

    def describe(self) -> str:
        return (f"{self.name}: {self.x.size} x {self.t.size} grid, noise variance {self.noise_var:g}, "
                f"dataset {self.dataset}, {len(self.train_idx)}/{len(self.val_idx)}/{len(self.test_idx)} "
                "train/val/test points")


def split_indices(n: int, seed: int, fractions=SPLIT_FRACTIONS):
    """Seeded random 80:10:10 split of ``n`` points (sorted index arrays)."""
    if n < 3:
        raise ValueError(f"need at least 3 observations to split into train/validation/test, got {n}")
    rng = np.random.default_rng(stable_int("split", seed))
    perm = rng.permutation(n)
    n_train = int(round(fractions[0] * n))
    n_val = int(round(fractions[1] * n))
    n_val = max(n_val, 1)
    n_train = min(n_train, n - n_val - 1)
    return (np.sort(perm[:n_train]), np.sort(perm[n_train:n_train + n_val]),
            np.sort(perm[n_train + n_val:]))


def make_observations(benchmark, noise_var: float = DEFAULT_NOISE_VAR, dataset: int = 0, dense: bool = False,
                      split_seed: int | None = None) -> Observations:
    """Noisy observations of a benchmark (name or ``Benchmark``).

    ``dataset`` indexes independent noise realisations (the noise study uses ten);
    ``split_seed`` defaults to ``dataset`` so independent datasets also differ in split.
    """
    from .problems import get_benchmark, reference_solution, spatial_grid

    bench = get_benchmark(benchmark) if isinstance(benchmark, str) else benchmark
    noise_var = float(noise_var)
    if not np.isfinite(noise_var) or noise_var < 0:
        raise ValueError(f"noise variance must be a finite number >= 0, got {noise_var}")
    if int(dataset) != dataset or dataset < 0:
        raise ValueError(f"dataset must be a non-negative integer, got {dataset!r}")
    x = spatial_grid(dense)
    t = bench.times()
    u = reference_solution(bench, dense=dense)
    rng = np.random.default_rng(stable_int("noise", bench.name, int(dense), int(dataset)))
    z = rng.standard_normal(u.shape)
    u_obs = u + np.sqrt(noise_var) * z
    return Observations(name=bench.name, x=x, t=t, u_obs=u_obs, u_clean=u, noise_var=noise_var,
                        dataset=int(dataset), dense=bool(dense),
                        split_seed=int(dataset if split_seed is None else split_seed))
