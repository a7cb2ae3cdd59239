"""The BINN loss terms (paper Eqs. dataloss, PDEloss, BCloss, totalloss), batched over replicates.

The PDE residual is evaluated in flux form,

    r = u_t - d/dx[ D(u) u_x - u V(u) ] - u G(u)
      = u_t - D'(u) u_x^2 - D(u) u_xx + (V(u) + u V'(u)) u_x - u G(u),

with u, u_x, u_t, u_xx and D', V' propagated analytically through the tanh layers
(``networks.solution_jet`` / ``networks.operator_with_slope``).  ``tests/reference_binn.py``
holds a plain-autograd implementation that the tests prove equal to this one.
"""
from __future__ import annotations

import torch

from .networks import NetworkLayout, operator_with_slope, solution_jet, mlp_value


def loss_components(flat: torch.Tensor, layout: NetworkLayout, pde_xt: torch.Tensor,
                    bc_xt: torch.Tensor, data_xt: torch.Tensor, data_u: torch.Tensor) -> torch.Tensor:
    """Unweighted (L_data, L_PDE, L_BC) per replicate, shape (R, 3).

    pde_xt (R, P, 2) collocation points; bc_xt (R, 2 N_BC, 2) boundary points, the first
    half at x_min and the second at x_max; data_xt (R, B, 2) and data_u (R, B) a mini-batch.
    """
    P = pde_xt.shape[1]
    Q = P + bc_xt.shape[1]
    xt = torch.cat([pde_xt, bc_xt, data_xt], dim=1)
    u, ux, ut, uxx = solution_jet(flat, layout.net("u"), xt, P, Q)
    u = u[..., 0]
    ux = ux[..., 0]
    # data loss (Eq. dataloss) on the mini-batch
    l_data = ((u[:, Q:] - data_u) ** 2).mean(dim=1)
    # boundary loss (Eq. BCloss): mean over each boundary, summed
    n_bc = bc_xt.shape[1] // 2
    uxb = ux[:, P:]
    l_bc = (uxb[:, :n_bc] ** 2).mean(dim=1) + (uxb[:, n_bc:] ** 2).mean(dim=1)
    # PDE residual (Eq. PDEloss) in flux form
    up = u[:, :P, None]
    uxp = ux[:, :P]
    res = ut[..., 0]
    netD, netV, netG = layout.net("D"), layout.net("V"), layout.net("G")
    if netD is not None:
        D, dD = operator_with_slope(flat, netD, up)
        res = res - dD[..., 0] * uxp * uxp - D[..., 0] * uxx[..., 0]
    if netV is not None:
        V, dV = operator_with_slope(flat, netV, up)
        res = res + (V[..., 0] + up[..., 0] * dV[..., 0]) * uxp
    if netG is not None:
        G = mlp_value(flat, netG, up)
        res = res - up[..., 0] * G[..., 0]
    l_pde = (res * res).mean(dim=1)
    return torch.stack([l_data, l_pde, l_bc], dim=1)


def weighted_total(components: torch.Tensor, weights: torch.Tensor) -> torch.Tensor:
    """Eq. totalloss per replicate: components (R, 3) times weights (R, 3), summed."""
    return (components * weights).sum(dim=1)


def step_loss(flat, layout, pde_xt, bc_xt, data_xt, data_u, weights):
    """Per-replicate total and components for one optimiser step (the function we compile)."""
    comps = loss_components(flat, layout, pde_xt, bc_xt, data_xt, data_u)
    return weighted_total(comps, weights), comps
