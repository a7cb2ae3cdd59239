"""The random numbers of training, drawn on the CPU per replicate: each replicate's
mini-batch permutations, collocation points and boundary times come from its own seeded
generator, in a fixed order, whatever the device and however the draw is split over threads."""
from __future__ import annotations

import torch


def collocation(gen, x_range, t_range, dtype, shape_p, shape_b):
    """Collocation points (shape_p + (2,)) uniform in the domain and boundary times
    (shape_b), drawn in float64 from ``gen`` (in this order) and cast to ``dtype``."""
    (x0, x1), (t0, t1) = x_range, t_range
    p = torch.rand(*shape_p, 2, generator=gen, dtype=torch.float64)
    p[..., 0] = x0 + (x1 - x0) * p[..., 0]
    p[..., 1] = t0 + (t1 - t0) * p[..., 1]
    bt = t0 + (t1 - t0) * torch.rand(*shape_b, generator=gen, dtype=torch.float64)
    return p.to(dtype), bt.to(dtype)


class _Later:
    """A future's face (``result()``) over a function: what ``ChunkDrawer.submit`` returns."""

    def __init__(self, fn):
        self.result = fn


class ChunkDrawer:
    """Draws a chunk of epochs' random numbers on the CPU: for each replicate, from its own
    generator and in a fixed order, the mini-batch permutations (chunk, N), then the
    collocation points (chunk, S, P, 2) and boundary times (chunk, S, 2 N_BC).  With
    ``threads`` > 0 the replicates are split over a thread pool and ``submit`` returns at
    once (the draw overlaps training); the numbers are the same either way."""

    def __init__(self, gens, n_train, S, n_pde, n_bc2, x_range, t_range, dtype, dev, threads=0):
        self.gens, self.n_train, self.S, self.n_pde, self.n_bc2 = gens, n_train, S, n_pde, n_bc2
        self.x_range, self.t_range, self.dtype, self.dev = x_range, t_range, dtype, dev
        self.pool = None
        if threads and threads > 0:
            from concurrent.futures import ThreadPoolExecutor
            self.pool = ThreadPoolExecutor(max_workers=threads, thread_name_prefix="binn-draw")
            n = len(gens)
            k = min(threads, n)
            self.slices = [slice(i * n // k, (i + 1) * n // k) for i in range(k)]

    def _draw(self, gens, chunk):
        perms = torch.stack([torch.argsort(torch.rand(chunk, self.n_train, generator=g), dim=1) for g in gens])
        cp, cb = zip(*[collocation(g, self.x_range, self.t_range, self.dtype, (chunk, self.S, self.n_pde),
                                    (chunk, self.S, self.n_bc2)) for g in gens])
        out = perms, torch.stack(cp), torch.stack(cb)
        if self.dev.type == "cuda":
            out = tuple(a.pin_memory() for a in out)
        return out

    def _to_device(self, parts):
        return tuple(torch.cat([x.to(self.dev, non_blocking=True) for x in a]) for a in zip(*parts))

    def submit(self, chunk):
        # the generators as they are before this chunk (a checkpoint taken before the chunk
        # trains restarts the draws here); the previous draw has finished by now
        self.states_before_last = [g.get_state().numpy().copy() for g in self.gens]
        if self.pool is None:
            drawn = self._to_device([self._draw(self.gens, chunk)])  # now: the generators move on here
            return _Later(lambda: drawn)
        futures = [self.pool.submit(self._draw, self.gens[sl], chunk) for sl in self.slices]
        return _Later(lambda: self._to_device([f.result() for f in futures]))

    def close(self):
        if self.pool is not None:
            self.pool.shutdown(wait=True, cancel_futures=True)
