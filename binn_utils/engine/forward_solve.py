"""Forward-predicted solution u_p from (learned or true) constitutive functions.

Implements the conservative finite-volume scheme of the Supporting Material
("Numerical reconstruction using learned constitutive functions") for

    u_t = d/dx( D(u) u_x - u V(u) ) + u G(u),   x in [x_0, x_{N-1}],
    u_x = 0 at both ends (homogeneous Neumann),

on a uniform node-centred mesh ``x_0 < ... < x_{N-1}`` with spacing ``dx``:

* diffusivity at the nodes, ``D_i = D(u_i)``, arithmetic mean at the faces,
  ``D_{i+1/2} = (D_i + D_{i+1}) / 2``; diffusive flux
  ``F^diff_{i+1/2} = D_{i+1/2} (u_{i+1} - u_i) / dx``;
* velocity at the nodes, ``V_i = V(u_i)``, arithmetic mean at the faces;
  first-order upwind state ``u^up = u_i`` if ``V_{i+1/2} >= 0`` else ``u_{i+1}``;
  advective flux ``F^adv_{i+1/2} = V_{i+1/2} u^up_{i+1/2}``;
* total flux ``F = F^diff - F^adv``;
* ``du_i/dt = (F_{i+1/2} - F_{i-1/2}) / dx + u_i G(u_i)``, ``i = 0..N-1``;
* Neumann conditions through mirrored ghost nodes ``u_{-1} = u_1`` and
  ``u_N = u_{N-2}``; the boundary faces ``-1/2`` and ``N-1/2`` are evaluated
  from the extended (ghost-padded) vector exactly like interior faces;
* time integration with :func:`scipy.integrate.solve_ivp` (``method="RK45"``)
  and ``t_eval`` equal to the requested output times.

Consequences of the ghost-node construction worth knowing:

* for pure diffusion (any ``D``) the boundary fluxes are antisymmetric
  (``F_{-1/2} = -F_{1/2}``), so the *trapezoid-weighted* mass
  ``dx * (u_0/2 + u_1 + ... + u_{N-2} + u_{N-1}/2)`` is conserved exactly by
  the semi-discrete system;
* the advective boundary flux is *not* zero (the Neumann condition constrains
  ``u_x`` only), so with advection mass can leave through the boundary.

Robustness contract: :func:`forward_solve` never raises because of a bad
operator.  Non-finite operator values, exceptions raised by the operator
callables, too many right-hand-side evaluations (stiff problems; RK45 is
explicit) and ``solve_ivp`` failures give ``status="failed"``; a solution whose
magnitude exceeds ``blowup`` gives ``status="blowup"``.  Output times that were
not reached are NaN.  (When the integration is aborted from inside the
right-hand side -- operator failure or the ``max_rhs`` budget -- SciPy returns
nothing, so the whole array is NaN; for a blow-up and for a ``solve_ivp``
failure the rows reached before the failure are kept.)
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np

from .solvers import uniform_spacing

__all__ = [
    "ForwardSolution",
    "forward_solve",
    "forward_solve_many",
    "failure_count",
    "fv_rhs",
]

Operator = Callable[[np.ndarray], np.ndarray] | None


@dataclass
class ForwardSolution:
    """Result of :func:`forward_solve`.

    Attributes
    ----------
    u:
        ``(n_t, n_x)`` solution at the requested times; NaN rows for times
        that were not reached (all NaN if the solve was aborted).
    status:
        ``"ok"``, ``"failed"`` (solver error, too many RHS evaluations,
        non-finite operator values or an exception in an operator) or
        ``"blowup"`` (``max|u|`` exceeded the blow-up bound).
    message:
        Human-readable explanation.
    n_rhs:
        Number of right-hand-side evaluations performed.
    wall_s:
        Wall-clock seconds spent in the solve.
    """

    u: np.ndarray
    status: str
    message: str
    n_rhs: int
    wall_s: float = field(default=float("nan"))

    @property
    def ok(self) -> bool:
        return self.status == "ok"


# --------------------------------------------------------------------------
# private control-flow exceptions raised inside the RHS to abort solve_ivp
# --------------------------------------------------------------------------
class _AbortSolve(Exception):
    status = "failed"


class _OperatorFailure(_AbortSolve):
    status = "failed"


class _TooManyEvaluations(_AbortSolve):
    status = "failed"


class _NonFiniteState(_AbortSolve):
    status = "blowup"


def _evaluate(op: Operator, name: str, u: np.ndarray) -> np.ndarray | None:
    """Evaluate an operator at the nodal values ``u`` (``None`` -> absent).

    Scalar outputs are broadcast; outputs with ``u.size`` elements (e.g. a
    column vector from a network wrapper) are reshaped.  Raises
    :class:`_OperatorFailure` on exceptions, wrong sizes or non-finite values.
    """
    if op is None:
        return None
    try:
        out = np.asarray(op(u), dtype=float)
    except Exception as exc:  # noqa: BLE001 - any failure of a user callable
        raise _OperatorFailure(
            f"operator {name} raised {type(exc).__name__}: {exc}"
        ) from exc
    if out.size == u.size:
        out = out.reshape(u.shape)
    elif out.size == 1:
        out = np.full(u.shape, float(out.reshape(())))
    else:
        raise _OperatorFailure(
            f"operator {name} returned {out.size} values for {u.size} inputs"
        )
    if not np.all(np.isfinite(out)):
        bad = ~np.isfinite(out)
        raise _OperatorFailure(
            f"operator {name} returned non-finite values at {int(bad.sum())} of "
            f"{u.size} nodes (e.g. u={float(u[bad][0]):.6g} -> {float(out[bad][0])})"
        )
    return out


def _mirror(a: np.ndarray) -> np.ndarray:
    """Extend a nodal vector with mirrored ghost values a_{-1}=a_1, a_N=a_{N-2}."""
    return np.concatenate((a[1:2], a, a[-2:-1]))


def fv_rhs(u: np.ndarray, dx: float, D: Operator = None, V: Operator = None,
           G: Operator = None) -> np.ndarray:
    """Semi-discrete right-hand side ``du/dt`` of the SM finite-volume scheme.

    Vectorised over nodes.  Raises the private ``_OperatorFailure`` for bad
    operator output (callers outside this module should use
    :func:`forward_solve`, which converts it into a status).
    """
    ue = _mirror(u)  # (N+2,) with ghost nodes
    flux = np.zeros(u.size + 1)  # faces -1/2, 1/2, ..., N-1/2
    Dn = _evaluate(D, "D", u)
    if Dn is not None:
        De = _mirror(Dn)  # D at ghost node = D(ghost u) = D(mirrored u)
        flux += 0.5 * (De[:-1] + De[1:]) * (ue[1:] - ue[:-1]) / dx
    Vn = _evaluate(V, "V", u)
    if Vn is not None:
        Ve = _mirror(Vn)
        Vf = 0.5 * (Ve[:-1] + Ve[1:])
        u_up = np.where(Vf >= 0.0, ue[:-1], ue[1:])
        flux -= Vf * u_up
    dudt = (flux[1:] - flux[:-1]) / dx
    Gn = _evaluate(G, "G", u)
    if Gn is not None:
        dudt += u * Gn
    return dudt


FORWARD_METHODS = ("RK45", "BDF", "Radau")
#: above this many positions RK45 is stability-limited (351 points: ~90 s per solve, BDF ~1 s)
EXPLICIT_FINE_GRID = 300


def check_method(method: str) -> str:
    """``method`` if it is one of ``FORWARD_METHODS``, else a clear ``ValueError``."""
    if method not in FORWARD_METHODS:
        raise ValueError(f"unknown forward-solve method {method!r}; choose from {FORWARD_METHODS}")
    return method


def _check_inputs(u0, x, t):
    """(u0, x, t) as float arrays and the grid spacing; ``ValueError`` for a malformed grid,
    initial condition or time vector (programming errors)."""
    x = np.asarray(x, dtype=float)
    t = np.asarray(t, dtype=float)
    u0 = np.asarray(u0, dtype=float).reshape(-1)
    dx = uniform_spacing(x)   # the one definition of a uniform grid (solvers.UNIFORM_RTOL)
    if u0.shape != x.shape:
        raise ValueError(f"u0 has shape {u0.shape}, expected {x.shape}")
    if t.ndim != 1 or t.size < 1 or np.any(np.diff(t) <= 0) or not np.all(np.isfinite(t)):
        raise ValueError("t must be a non-empty, strictly increasing 1-D array")
    return u0, x, t, dx


def _default_budget(n_x: int) -> int:
    """Right-hand-side evaluations allowed by default: ``20000 * n_x / 71`` (at least 20000)."""
    return int(20_000 * max(1.0, n_x / 71))


class _Solve:
    """One forward solve: the semi-discrete system, its right-hand-side evaluations counted
    against a budget (``n_rhs``, ``budget``), the blow-up bound and its terminal event, the
    output array and the clock.  An integration returns its solution, or instead the failed
    result (``implicit``: ``(solution, None)`` or ``(None, failed)``; ``explicit`` adds the note
    that a stiff fallback was used).  ``outcome`` turns a solution into the result."""

    def __init__(self, D, V, G, u0, t, dx, rtol, atol, blowup, max_rhs):
        self.ops, self.u0, self.t, self.dx, self.rtol, self.atol = (D, V, G), u0, t, dx, rtol, atol
        self.u_out = np.full((t.size, u0.size), np.nan)
        self.start = time.perf_counter()
        self.bound = 1e3 * float(np.max(np.abs(u0))) + 1.0 if blowup is None else float(blowup)
        self.budget = int(max_rhs) if max_rhs is not None else _default_budget(u0.size)
        self.n_rhs = 0

        def blowup_event(_t: float, u: np.ndarray) -> float:
            return self.bound - float(np.max(np.abs(u)))

        blowup_event.terminal = True
        blowup_event.direction = -1
        self.blowup_event = blowup_event

    def result(self, status: str, message: str) -> ForwardSolution:
        return ForwardSolution(self.u_out, status, message, self.n_rhs, time.perf_counter() - self.start)

    def rhs(self, _t: float, u: np.ndarray) -> np.ndarray:
        self.n_rhs += 1
        if self.n_rhs > self.budget:
            raise _TooManyEvaluations(
                f"exceeded max_rhs={self.budget} right-hand-side evaluations at "
                f"t={_t:.6g} (stiff or badly scaled operators)")
        if not np.all(np.isfinite(u)):
            raise _NonFiniteState(f"non-finite solution state at t={_t:.6g}")
        with np.errstate(all="ignore"):
            dudt = fv_rhs(u, self.dx, *self.ops)
        if not np.all(np.isfinite(dudt)):
            raise _OperatorFailure(
                f"non-finite right-hand side at t={_t:.6g} (overflow in fluxes)")
        return dudt

    def at_initial_time(self) -> ForwardSolution:
        """A single output time: nothing to integrate, but the operators are checked at u0."""
        try:
            self.rhs(self.t[0], self.u0)
        except _AbortSolve as exc:
            return self.result(exc.status, str(exc))
        self.u_out[0] = self.u0
        return self.result("ok", "single output time")

    def implicit(self, name: str, note: str):
        """The same system with an implicit method and the tridiagonal Jacobian sparsity."""
        from scipy.integrate import solve_ivp
        from scipy.sparse import diags_array
        n_x, t = self.u0.size, self.t
        self.n_rhs = 0
        self.budget = max(self.budget, _default_budget(n_x))
        sparsity = diags_array([np.ones(n_x - 1), np.ones(n_x), np.ones(n_x - 1)], offsets=[-1, 0, 1])
        try:
            with np.errstate(all="ignore"):
                return solve_ivp(self.rhs, (t[0], t[-1]), self.u0, method=name, t_eval=t, rtol=self.rtol,
                                 atol=self.atol, events=self.blowup_event, jac_sparsity=sparsity), None
        except _AbortSolve as exc2:
            return None, self.result(exc2.status, note + str(exc2))
        except Exception as exc2:  # noqa: BLE001 - never raise for bad operators
            return None, self.result("failed", note + f"solve_ivp raised {type(exc2).__name__}: {exc2}")

    def explicit(self, stiff_fallback: str | None):
        """RK45 (the paper's integrator); beyond the budget, ``stiff_fallback`` if set.
        Returns (solution or None, failed result or None, note)."""
        from scipy.integrate import solve_ivp
        t = self.t
        try:
            with np.errstate(all="ignore"):
                return solve_ivp(self.rhs, (t[0], t[-1]), self.u0, method="RK45", t_eval=t,
                                 rtol=self.rtol, atol=self.atol, events=self.blowup_event), None, ""
        except _TooManyEvaluations as exc:
            if stiff_fallback is None:
                return None, self.result(exc.status, str(exc)), ""
            note = f"RK45 too stiff ({exc}); solved with {stiff_fallback}. "
            return *self.implicit(stiff_fallback, note), note
        except _AbortSolve as exc:
            return None, self.result(exc.status, str(exc)), ""
        except Exception as exc:  # noqa: BLE001 - never raise for bad operators
            return None, self.result("failed", f"solve_ivp raised {type(exc).__name__}: {exc}"), ""

    def outcome(self, sol, note: str) -> ForwardSolution:
        """The result of a finished integration: the output rows reached, and its status."""
        n_t = self.t.size
        n_done = sol.y.shape[1]
        if n_done:
            self.u_out[:n_done] = sol.y.T
        if sol.status == 1:  # terminal blow-up event
            t_ev = float(sol.t_events[0][0]) if len(sol.t_events[0]) else float("nan")
            return self.result("blowup", note + f"max|u| exceeded {self.bound:.4g} at t={t_ev:.6g}; "
                                                f"{n_done}/{n_t} output times reached")
        if sol.status != 0:
            return self.result("failed", f"solve_ivp failed: {sol.message}; {n_done}/{n_t} output times reached")
        if n_done != n_t or not np.all(np.isfinite(self.u_out)):
            return self.result("failed", "solve_ivp returned incomplete or non-finite output")
        if np.max(np.abs(self.u_out)) > self.bound:
            return self.result("blowup", f"max|u| exceeded {self.bound:.4g}")
        return self.result("ok", note + sol.message)


def forward_solve(D: Operator, V: Operator, G: Operator, u0, x, t, *,
                  rtol: float = 1e-6, atol: float = 1e-9,
                  max_rhs: int | None = None,
                  blowup: float | None = None,
                  stiff_fallback: str | None = "BDF",
                  method: str = "RK45") -> ForwardSolution:
    """Solve the ADR equation with operators ``D, V, G`` (``None`` = absent).

    Parameters
    ----------
    D, V, G:
        Vectorised callables ``f(u: ndarray) -> ndarray`` (scalar output is
        broadcast) or ``None``.
    u0:
        Initial values on the nodes ``x``.
    x:
        Uniform increasing grid (e.g. the 71- or 351-node data grid).
    t:
        Increasing output times; ``t[0]`` is the initial time.
    rtol, atol:
        RK45 tolerances.
    max_rhs:
        Budget of right-hand-side evaluations of the explicit RK45 solve (the
        Supporting Material's integrator); default ``20000 * n_x / 71``, about
        ten times what the true diffusion benchmark needs.  A learned operator
        that is large somewhere makes the problem stiff: RK45 then crawls with
        tiny steps.  Exceeding the budget aborts RK45 and, if ``stiff_fallback``
        is set, the same semi-discrete system is solved by that implicit SciPy
        method (BDF, tridiagonal Jacobian sparsity, its own budget), which gives
        the same solution to the tolerance wherever RK45 succeeds; the message
        then says so.  Without a fallback, or if it fails too, the status is
        ``"failed"``.
    blowup:
        Bound on ``max|u|``; default ``1e3 * max|u0| + 1``.
    method:
        ``"RK45"`` (the paper's integrator, with the fallback above) or an implicit
        SciPy method (``"BDF"``, ``"Radau"``) used from the start, with the tridiagonal
        Jacobian sparsity.  On the 351-point grid the explicit stability limit
        (:math:`\\Delta t \\lesssim \\Delta x^2 / 2D`) makes RK45 take tens of thousands
        of right-hand-side evaluations where BDF needs a few hundred, for the same
        solution to the tolerance.

    Returns
    -------
    ForwardSolution
        Never raises for bad operators.  ``ValueError`` is raised only for
        malformed grids/time vectors (programming errors).
    """
    check_method(method)
    u0, x, t, dx = _check_inputs(u0, x, t)
    solve = _Solve(D, V, G, u0, t, dx, rtol, atol, blowup, max_rhs)
    if not np.all(np.isfinite(u0)):
        return solve.result("failed", "initial condition contains non-finite values")
    if t.size == 1:
        return solve.at_initial_time()
    if method != "RK45":
        note = f"solved with {method}. "
        sol, failed = solve.implicit(method, note)
    else:
        sol, failed, note = solve.explicit(stiff_fallback)
    return failed if failed is not None else solve.outcome(sol, note)


def _unpack_operators(ops) -> tuple[Operator, Operator, Operator]:
    if isinstance(ops, Mapping):
        return ops.get("D"), ops.get("V"), ops.get("G")
    if all(hasattr(ops, a) for a in ("D", "V", "G")):
        return ops.D, ops.V, ops.G
    D, V, G = ops
    return D, V, G


def _solve_job(job) -> ForwardSolution:
    """One forward solve (module level, so that a process pool can run it)."""
    (D, V, G), u0, x, t, kw = job
    return forward_solve(D, V, G, u0, x, t, **kw)


def forward_solve_many(operator_sets: Sequence, u0s, x, t, solve_map=None, **kw) -> list[ForwardSolution]:
    """Run :func:`forward_solve` for each operator set, one after the other or with
    ``solve_map`` (a ``map``-like callable, e.g. the ``map`` of ``solve_workers.solve_pool``).

    ``operator_sets`` items are ``(D, V, G)`` tuples, mappings with keys
    ``"D"``, ``"V"``, ``"G"`` (missing -> absent) or objects with ``.D``,
    ``.V``, ``.G`` attributes.  ``u0s`` is either one initial condition
    (shape ``(n_x,)``, shared) or one per operator set (``(R, n_x)`` or a
    list).  Keyword arguments are passed to :func:`forward_solve`.
    """
    operator_sets = list(operator_sets)
    n_x = np.asarray(x).size
    u0_arr = np.asarray(u0s, dtype=float) if not isinstance(u0s, list) else None
    if u0_arr is not None and u0_arr.ndim == 1 and u0_arr.size == n_x:
        u0_list = [u0_arr] * len(operator_sets)
    else:
        u0_list = list(u0s)
        if len(u0_list) != len(operator_sets):
            raise ValueError(f"{len(u0_list)} initial conditions for "
                             f"{len(operator_sets)} operator sets")
    jobs = [(_unpack_operators(ops), u0, x, t, kw) for ops, u0 in zip(operator_sets, u0_list)]
    return list((solve_map or map)(_solve_job, jobs))


def failure_count(solutions: Sequence[ForwardSolution]) -> int:
    """Number of solutions whose status is not ``"ok"``."""
    return sum(1 for s in solutions if not s.ok)
