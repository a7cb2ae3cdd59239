"""Where the parameters of the ADR-BINN's four multilayer perceptrons live, and their
evaluation in numpy: the torch-free half of ``networks`` (which holds the batched torch
passes), so that describing, storing and reading trained networks needs no torch.

Layout conventions
------------------
* ``Architecture(h, n)``: ``h >= 2`` gives ``in -> n -> ... -> n -> 1`` with ``h`` hidden
  tanh layers; ``h == 1`` is a *single affine layer* ``in -> 1`` with no activation (the
  architecture figure's caption: "when there is only one hidden layer, an Identity
  activation ... and a Linear output"), whatever ``n`` is.
* The output activation is SoftplusReLU (``softplus`` with threshold 20) for u, D and V,
  and the identity for G: the default nonlinear ADR benchmark needs G = -1/2 < 0, which a
  softplus output cannot represent (an implementation note in the errata page).
* All parameters of one replicate live in one flat vector; ``NetworkLayout`` knows
  where each weight matrix (stored ``(fan_in, fan_out)``) and bias sits.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

SOFTPLUS_THRESHOLD = 20.0
NETWORK_NAMES = ("u", "D", "V", "G")


@dataclass(frozen=True)
class Architecture:
    """(h, n): number of hidden layers and nodes per hidden layer."""

    hidden_layers: int = 4
    width: int = 32

    def __post_init__(self):
        for name in ("hidden_layers", "width"):
            v = getattr(self, name)
            if not isinstance(v, (int, np.integer)) or isinstance(v, bool) or v < 1:
                raise ValueError(f"Architecture.{name} must be an integer >= 1, got {v!r}")

    @classmethod
    def coerce(cls, value) -> "Architecture":
        if isinstance(value, Architecture):
            return value
        try:
            h, n = value
        except (TypeError, ValueError):
            raise ValueError(f"an architecture is a pair (h, n), got {value!r}") from None
        # integers only: truncating (4.7, 32.9) would train (4, 32) under a key that says 4.7
        return cls(*(int(v) if isinstance(v, (int, np.integer)) and not isinstance(v, bool) else v
                     for v in (h, n)))

    def layer_shapes(self, in_dim: int) -> list[tuple[int, int]]:
        if self.hidden_layers == 1:
            return [(in_dim, 1)]
        dims = [in_dim] + [self.width] * self.hidden_layers + [1]
        return list(zip(dims[:-1], dims[1:]))

    @property
    def affine(self) -> bool:
        return self.hidden_layers == 1

    def __str__(self):
        return f"({self.hidden_layers},{self.width})"


@dataclass(frozen=True)
class NetSpec:
    name: str
    arch: Architecture
    in_dim: int
    output: str  # "softplus" | "identity"
    # (w_offset, b_offset, fan_in, fan_out) per layer, offsets into the flat vector
    layers: tuple[tuple[int, int, int, int], ...] = field(default=())

    @property
    def n_params(self) -> int:
        return sum(fi * fo + fo for _, _, fi, fo in self.layers)


@dataclass(frozen=True)
class NetworkLayout:
    """Where the parameters of the u, D, V, G networks live in one flat vector."""

    nets: tuple[NetSpec, ...]
    n_params: int

    @classmethod
    def build(cls, arch_u, arch_D=None, arch_V=None, arch_G=None) -> "NetworkLayout":
        archs = {"u": arch_u, "D": arch_D, "V": arch_V, "G": arch_G}
        offset = 0
        nets = []
        for name in NETWORK_NAMES:
            if archs[name] is None:
                continue
            arch = Architecture.coerce(archs[name])
            in_dim = 2 if name == "u" else 1
            layers = []
            for fi, fo in arch.layer_shapes(in_dim):
                layers.append((offset, offset + fi * fo, fi, fo))
                offset += fi * fo + fo
            output = "identity" if (arch.affine or name == "G") else "softplus"
            nets.append(NetSpec(name, arch, in_dim, output, tuple(layers)))
        return cls(tuple(nets), offset)

    def net(self, name: str) -> NetSpec | None:
        for n in self.nets:
            if n.name == name:
                return n
        return None

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(n.name for n in self.nets)

    def to_dict(self) -> dict:
        return {n.name: [n.arch.hidden_layers, n.arch.width] for n in self.nets}


# --------------------------------------------------------------------------- numpy evaluation
def numpy_params(flat: np.ndarray, net: NetSpec):
    return [(flat[w:w + fi * fo].reshape(fi, fo), flat[b:b + fo]) for w, b, fi, fo in net.layers]


def _forward_np(layers, output: str, h: np.ndarray) -> np.ndarray:
    for k, (W, b) in enumerate(layers):
        h = h @ W + b
        if k < len(layers) - 1:
            h = np.tanh(h)
    h = h[:, 0]
    if output == "softplus":
        return np.where(h > SOFTPLUS_THRESHOLD, h, np.log1p(np.exp(np.minimum(h, SOFTPLUS_THRESHOLD))))
    return h


def mlp_numpy(flat_r: np.ndarray, net: NetSpec, inp: np.ndarray) -> np.ndarray:
    """Forward pass of one replicate in numpy (float64): inp (N, in_dim) -> (N,)."""
    layers = numpy_params(np.asarray(flat_r, dtype=np.float64), net)
    return _forward_np(layers, net.output, np.asarray(inp, dtype=np.float64))


class OperatorFunction:
    """A learned operator of one replicate as a vectorised numpy function of u."""

    def __init__(self, flat_r: np.ndarray, net: NetSpec):
        self.net = net
        self.layers = numpy_params(np.asarray(flat_r, dtype=np.float64), net)

    def __call__(self, u):
        u = np.asarray(u, dtype=np.float64)
        return _forward_np(self.layers, self.net.output, u.reshape(-1, 1)).reshape(u.shape)
