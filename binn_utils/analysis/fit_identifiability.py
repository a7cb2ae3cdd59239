"""Identifiability of a fit's learned operators (``binn fit``'s report): first, does the
learned model fit the data (:func:`model_misfit`: the data's chi-square about its forward
solution against its distribution under the estimated noise)?  Only a model that fits is
measured, by :func:`identifiability.identifiability` on its median operators, against the
noise estimated from the data (:func:`noise_estimate`)."""
from __future__ import annotations

import numpy as np
from scipy import stats

from .identifiability import Identifiability, identifiability, operator_from_curve

__all__ = ["FIT_QUANTILE", "noise_estimate", "model_misfit", "learned_identifiability"]


def noise_estimate(u_obs, u_fit, replicate_sd: float | None = None,
                   replicate_how: str = "the measurements' between-replicate standard deviation") -> tuple[float, str]:
    """(sigma, how it was estimated) for data without a known noise: ``replicate_sd``, the
    between-replicate standard deviation of the measurements when there are replicates (divided
    by the root of their number when their mean is what was fitted is the caller's business, and
    ``replicate_how`` says which), else the root-mean-square residual of the data about the fitted
    solution ``u_fit`` (ground-truth free; it includes any misfit, so it errs on the side of a
    larger sigma: fewer operators called constrained)."""
    if replicate_sd is not None and np.isfinite(replicate_sd) and replicate_sd > 0:
        return float(replicate_sd), replicate_how
    r = np.asarray(u_obs, float) - np.asarray(u_fit, float)
    s = float(np.sqrt(np.nanmean(r ** 2)))
    if not (np.isfinite(s) and s > 0):
        raise ValueError("cannot estimate the noise: the fitted solution matches the data exactly")
    return s, "the root-mean-square residual of the data about the median learned solution"


#: A learned model "fits" when the data's chi-square about its forward solution is below this
#: quantile of its distribution under the estimated noise (a misfit this large arises by chance
#: once in a thousand data sets).
FIT_QUANTILE = 0.999


def model_misfit(u_obs, u_p, sigma: float, sigma_words: str | None = None) -> str | None:
    """Does the learned model fit the data?  None if the data's chi-square about the median
    forward solution ``u_p`` (R, n_t, n_x) at noise ``sigma``, the first time (the initial
    condition it starts from) left out, is below :data:`FIT_QUANTILE` of chi-square on as many
    points; else the sentence that says it does not (no forward solution: does not either).
    ``u_obs``: the data (n_t, n_x), or each replicate's (n_rep, n_t, n_x) where replicates were
    fitted separately (every one counts).  ``sigma_words``: sigma as the sentence gives it (its
    value in the data's units, say); default its value."""
    med = np.nanmedian(np.asarray(u_p, float), axis=0) if np.isfinite(u_p).any() else None
    if med is None or not np.isfinite(med).all():
        return "the learned model's forward solution could not be computed for every network"
    obs = np.asarray(u_obs, float)
    obs = obs[None] if obs.ndim == 2 else obs
    r = (obs - med[None])[:, 1:] / sigma
    n = int(np.isfinite(r).sum())
    chi2 = float(np.nansum(r ** 2))
    bar = float(stats.chi2.ppf(FIT_QUANTILE, n))
    if chi2 <= bar:
        return None
    return (f"the learned model does not fit the data: the data's chi-square about its forward solution u_p is "
            f"{chi2:.4g} on {n} points, where noise of the estimated size "
            f"(sigma = {sigma_words or format(sigma, '.3g')}) stays below {bar:.4g} in {100 * FIT_QUANTILE:g} % of "
            "data sets")


def learned_identifiability(curves: dict, u_grid, x, t, u_obs, u_theta, *, replicate_sd=None,
                            replicate_how: str = "the measurements' between-replicate standard deviation",
                            label: str = "learned operators", u_p=None, u_factor: float = 1.0,
                            u_unit: str = "") -> Identifiability:
    """:func:`identifiability` of learned operators: ``curves`` {name: (R, n_u) on ``u_grid``},
    whose median over the networks is the model; initial condition the median learned solution
    ``u_theta`` (R, n_t, n_x) at the first time; sigma from :func:`noise_estimate` of the data
    ``u_obs`` (n_t, n_x), or each replicate's (n_rep, n_t, n_x) where replicates were fitted
    separately (every one counts as an independent measurement of the same solution), all in one
    set of units (training units); ``u_factor`` and ``u_unit`` give sigma in the data's units in
    the words (``sigma_source``).  With ``u_p`` (the learned model's forward solutions,
    R x n_t x n_x), a model that does not fit the data (:func:`model_misfit`) raises ValueError:
    the labels would describe a poor fit, not what the data hold."""
    obs = np.asarray(u_obs, float)
    obs = obs[None] if obs.ndim == 2 else obs
    med_theta = np.nanmedian(np.asarray(u_theta, float), axis=0)
    sigma, how = noise_estimate(obs[0], med_theta, replicate_sd, replicate_how)
    words = f"{sigma * u_factor:.3g}{' ' + u_unit if u_unit else ''}"
    if u_p is not None:
        misfit = model_misfit(obs, u_p, sigma, words)
        if misfit:
            raise ValueError(misfit)
    ops = {k: operator_from_curve(u_grid, np.nanmedian(np.atleast_2d(v), axis=0)) for k, v in curves.items()}
    lo, hi = np.nanquantile(obs, [0.005, 0.995])
    return identifiability(ops, med_theta[0], x, t, sigma, label=label, u_range=(lo, hi),
                           sigma_source=f"{words}, {how}", copies=len(obs))
