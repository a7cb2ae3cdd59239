"""Synthetic noisy observations of a benchmark (paper Eq. noise) and the 80:10:10 split.

``u_o(x_i, t_i) = u(x_i, t_i) + N(0, sigma^2)`` on the sparse (71-node) or dense
(351-node) grid at the benchmark's observation times.  A dataset is identified by
(benchmark, dense, dataset index): its standard-normal draw ``z`` is fixed by those, and
``u_o = u + sigma z`` for every variance, so noise levels of one dataset share their
random numbers (common random numbers make the noise study's comparisons sharper).

The **authors' data** (``data="authors"``, :data:`DATA_SOURCES`) are instead the clean solution
and the standard-normal draw their scripts fix (numpy's legacy generator, seed 2, or 8 for linear
diffusion; rebuilt in ``data/authors_archive/authors_datasets.npz``, recipe in its
``DATASETS.md``), ``u_o = u + sigma z`` with their ``z`` at every variance (as their noise study
re-seeds for each); Fig. 1's script draws a fresh array per variance, the second for 1e-3 and the
third for 1e-2.  Their split cannot be recovered (``random_split`` of an unseeded torch
generator): a dataset index of the authors' data is one random split of those fixed data, of
their sizes (``int(0.8 n)``, ``int(0.1 n)``, the rest; 397 / 49 / 51 of 497 points), seeded by
the index, so datasets 0-4 are five splits of the same noisy observations (split d is drawn from
the same permutation as our dataset d's, cut at their sizes: the two are paired).
"""
from __future__ import annotations

import functools
import zlib
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

NOISE_VARIANCES = (0.0, 1e-3, 5e-3, 1e-2, 5e-2)
#: The paper's default observation noise variance (main text).
DEFAULT_NOISE_VAR = 1e-3
SPLIT_FRACTIONS = (0.8, 0.1, 0.1)
#: Whose data a setting trains on: "ours" (our solver's solution, our seeded noise and split) or
#: "authors" (the authors' clean solution and noise draw, our seeded split of their sizes).
DATA_SOURCES = ("ours", "authors")
AUTHORS_DATASETS = Path(__file__).resolve().parents[2] / "data" / "authors_archive" / "authors_datasets.npz"
#: benchmark -> the figure of the authors' scripts whose data it is (keys of the npz)
AUTHORS_FIGURES = {"diffusion": "fig6_linear_diffusion_batch", "burgers": "fig3_burgers",
                   "porous_medium": "fig4_porous_medium", "diffusion_advection": "fig5_diffusion_advection",
                   "nonlinear_adr": "fig1_nonlinear_adr"}
#: Fig. 1's script draws a fresh standard-normal array for each variance (in this order from seed 2)
AUTHORS_FIG1_DRAWS = {1e-3: 2, 1e-2: 3}


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
    data: str = "ours"            # DATA_SOURCES: "authors" for the authors' rebuilt data
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
        which = f"the authors' data, split {self.dataset}" if self.data == "authors" else f"dataset {self.dataset}"
        return (f"{self.name}: {self.x.size} x {self.t.size} grid, noise variance {self.noise_var:g}, "
                f"{which}, {len(self.train_idx)}/{len(self.val_idx)}/{len(self.test_idx)} "
                "train/val/test points")


def split_indices(n: int, seed: int, fractions=SPLIT_FRACTIONS, sizes=None):
    """Seeded random 80:10:10 split of ``n`` points (sorted index arrays); ``sizes``: (train,
    validation) counts instead of the rounded fractions."""
    if n < 3:
        raise ValueError(f"need at least 3 observations to split into train/validation/test, got {n}")
    rng = np.random.default_rng(stable_int("split", seed))
    perm = rng.permutation(n)
    if sizes is not None:
        n_train, n_val = map(int, sizes)
        if n_train < 1 or n_val < 1 or n_train + n_val >= n:
            raise ValueError(f"split sizes {sizes} do not leave training, validation and test points of {n}")
    else:
        n_train = int(round(fractions[0] * n))
        n_val = int(round(fractions[1] * n))
        n_val = max(n_val, 1)
        n_train = min(n_train, n - n_val - 1)
    return (np.sort(perm[:n_train]), np.sort(perm[n_train:n_train + n_val]),
            np.sort(perm[n_train + n_val:]))


@functools.lru_cache(maxsize=1)
def _authors_arrays() -> dict:
    try:
        with np.load(AUTHORS_DATASETS, allow_pickle=False) as z:
            return {k: z[k] for k in z.files}
    except (OSError, ValueError) as err:
        raise ValueError(f"cannot read the authors' data {AUTHORS_DATASETS.name}: {err}") from None


def check_authors_data(benchmark: str, noise_var: float, dense: bool, reaction: str = "supporting",
                       initial: str = "code") -> None:
    """Raise ValueError (one line) where the authors' data do not exist for this request."""
    if benchmark not in AUTHORS_FIGURES:
        raise ValueError(f"the authors' data exist for {sorted(AUTHORS_FIGURES)}, not {benchmark!r}")
    if dense:
        raise ValueError("the authors' data are rebuilt on the 71-point grid only (not dense)")
    if benchmark == "nonlinear_adr":
        if (reaction, initial) != ("supporting", "code"):
            raise ValueError("the authors' Fig. 1 data have the code's reaction and initial condition "
                             "(reaction 'supporting', initial 'code')")
        if float(noise_var) != 0.0 and float(noise_var) not in AUTHORS_FIG1_DRAWS:
            raise ValueError(f"the authors' Fig. 1 script draws noise for the variances "
                             f"{sorted(AUTHORS_FIG1_DRAWS)} (and 0), not {float(noise_var)!r}")


def authors_observations(bench, noise_var: float, dataset: int) -> Observations:
    """The authors' data (module docstring): their clean solution and noise draw, split ``dataset``."""
    from .problems import spatial_grid

    check_authors_data(bench.name, noise_var, False, bench.reaction, bench.initial)
    z, fig = _authors_arrays(), AUTHORS_FIGURES[bench.name]
    x, t = spatial_grid(False), bench.times()
    if z[f"{fig}/u_clean"].shape != (t.size, x.size) or np.max(np.abs(z[f"{fig}/x"] - x)) > 1e-9:
        raise ValueError(f"the authors' data of {bench.name} are not on this benchmark's grid")
    u = np.asarray(z[f"{fig}/u_clean"], dtype=np.float64)
    if noise_var == 0.0:
        draw = np.zeros_like(u)
    elif bench.name == "nonlinear_adr":
        draw = z[f"{fig}/noise_standard_normal_71pt_draw{AUTHORS_FIG1_DRAWS[noise_var]}"]
    else:
        draw = z[f"{fig}/noise_standard_normal"]
    n_train, n_val, _ = (int(v) for v in z[f"{fig}/split_sizes_train_val_test"])
    train, val, test = split_indices(u.size, int(dataset), sizes=(n_train, n_val))
    return Observations(name=bench.name, x=x, t=t, u_obs=u + np.sqrt(noise_var) * draw, u_clean=u,
                        noise_var=noise_var, dataset=int(dataset), split_seed=int(dataset), data="authors",
                        train_idx=train, val_idx=val, test_idx=test)


def make_observations(benchmark, noise_var: float = DEFAULT_NOISE_VAR, dataset: int = 0, dense: bool = False,
                      split_seed: int | None = None, data: str = "ours") -> Observations:
    """Noisy observations of a benchmark (name or ``Benchmark``).

    ``dataset`` indexes independent noise realisations (the noise study uses ten);
    ``split_seed`` defaults to ``dataset`` so independent datasets also differ in split.
    ``data="authors"``: the authors' data, split ``dataset`` of them (module docstring).
    """
    from .problems import get_benchmark, reference_solution, spatial_grid

    bench = get_benchmark(benchmark) if isinstance(benchmark, str) else benchmark
    noise_var = float(noise_var)
    if not np.isfinite(noise_var) or noise_var < 0:
        raise ValueError(f"noise variance must be a finite number >= 0, got {noise_var}")
    if int(dataset) != dataset or dataset < 0:
        raise ValueError(f"dataset must be a non-negative integer, got {dataset!r}")
    if data not in DATA_SOURCES:
        raise ValueError(f"data must be one of {DATA_SOURCES}, got {data!r}")
    if data == "authors":
        if dense or split_seed is not None:
            raise ValueError("the authors' data are on the 71-point grid, split by the dataset index")
        return authors_observations(bench, noise_var + 0.0, int(dataset))
    x = spatial_grid(dense)
    t = bench.times()
    u = reference_solution(bench, dense=dense)
    rng = np.random.default_rng(stable_int("noise", bench.name, int(dense), int(dataset)))
    z = rng.standard_normal(u.shape)
    u_obs = u + np.sqrt(noise_var) * z
    return Observations(name=bench.name, x=x, t=t, u_obs=u_obs, u_clean=u, noise_var=noise_var,
                        dataset=int(dataset), dense=bool(dense),
                        split_seed=int(dataset if split_seed is None else split_seed))
