"""The BINN loss terms (paper Eqs. dataloss, PDEloss, BCloss, totalloss), batched over replicates.

The PDE residual is evaluated in flux form,

    r = u_t - d/dx[ D(u) u_x - u V(u) ] - u G(u)
      = u_t - D'(u) u_x^2 - D(u) u_xx + (V(u) + u V'(u)) u_x - u G(u),

with u, u_x, u_t, u_xx and D', V' propagated analytically through the tanh layers
(``networks.solution_jet`` / ``networks.operator_with_slope``).  ``tests/reference_binn.py``
holds a plain-autograd implementation that the tests prove equal to this one.
``loss_and_grad`` adds the gradient by a hand-written backward pass (no autograd), which
the tests prove equal to autograd's.
"""
from __future__ import annotations

import torch

from .networks import (NetworkLayout, jet_bwd, jet_fwd, mlp_value_bwd, mlp_value_fwd, operator_bwd,
                       operator_fwd, operator_with_slope, solution_jet, mlp_value)


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


def loss_and_grad(flat: torch.Tensor, layout: NetworkLayout, pde_xt: torch.Tensor, bc_xt: torch.Tensor,
                  data_xt: torch.Tensor, data_u: torch.Tensor, weights: torch.Tensor):
    """Per-replicate weighted total loss (R,) and its gradient (R, n_params) in flat order.

    The same arithmetic as ``loss_components`` forwards, then the backward pass written
    out by hand through the loss, the operator networks and the solution jet: no autograd
    graph is built, so the whole step is one compiled function (and one CUDA graph).
    """
    R, P = pde_xt.shape[0], pde_xt.shape[1]
    Q = P + bc_xt.shape[1]
    n_bc = bc_xt.shape[1] // 2
    B = data_xt.shape[1]
    xt = torch.cat([pde_xt, bc_xt, data_xt], dim=1)
    netu = layout.net("u")
    (u3, ux3, ut3, uxx3), saved_u = jet_fwd(flat, netu, xt, P, Q)
    u = u3[..., 0]
    ux = ux3[..., 0]
    # ---- forward (as loss_components)
    err = u[:, Q:] - data_u
    l_data = (err ** 2).mean(dim=1)
    uxb = ux[:, P:]
    l_bc = (uxb[:, :n_bc] ** 2).mean(dim=1) + (uxb[:, n_bc:] ** 2).mean(dim=1)
    up3 = u3[:, :P]
    up = u[:, :P]
    uxp = ux[:, :P]
    uxx = uxx3[..., 0]
    res = ut3[..., 0]
    netD, netV, netG = layout.net("D"), layout.net("V"), layout.net("G")
    if netD is not None:
        D3, dD3, saved_D = operator_fwd(flat, netD, up3)
        D, dD = D3[..., 0], dD3[..., 0]
        res = res - dD * uxp * uxp - D * uxx
    if netV is not None:
        V3, dV3, saved_V = operator_fwd(flat, netV, up3)
        V, dV = V3[..., 0], dV3[..., 0]
        res = res + (V + up * dV) * uxp
    if netG is not None:
        G3, saved_G = mlp_value_fwd(flat, netG, up3)
        G = G3[..., 0]
        res = res - up * G
    l_pde = (res * res).mean(dim=1)
    comps = torch.stack([l_data, l_pde, l_bc], dim=1)
    total = (comps * weights).sum(dim=1)
    # ---- backward of sum(total)
    w_data, w_pde, w_bc = weights[:, 0:1], weights[:, 1:2], weights[:, 2:3]
    g_res = (2.0 / P) * w_pde * res                       # (R, P)
    g_up = torch.zeros_like(up)
    g_uxp = torch.zeros_like(uxp)
    g_uxx = torch.zeros_like(uxx)
    op_grads = {}
    if netD is not None:
        g_uxx = g_uxx - g_res * D
        g_uxp = g_uxp - 2.0 * g_res * dD * uxp
        op_grads["D"], g_in = operator_bwd(netD, saved_D, (-g_res * uxx)[..., None],
                                            (-g_res * uxp * uxp)[..., None])
        g_up = g_up + g_in[..., 0]
    if netV is not None:
        g_uxp = g_uxp + g_res * (V + up * dV)
        g_up = g_up + g_res * dV * uxp
        op_grads["V"], g_in = operator_bwd(netV, saved_V, (g_res * uxp)[..., None],
                                            (g_res * up * uxp)[..., None])
        g_up = g_up + g_in[..., 0]
    if netG is not None:
        g_up = g_up - g_res * G
        op_grads["G"], g_in = mlp_value_bwd(netG, saved_G, (-g_res * up)[..., None])
        g_up = g_up + g_in[..., 0]
    g_u = torch.cat([g_up, torch.zeros_like(uxb), (2.0 / B) * w_data * err], dim=1)
    g_ux = torch.cat([g_uxp, (2.0 / n_bc) * w_bc * uxb], dim=1)
    op_grads["u"] = jet_bwd(netu, saved_u, g_u[..., None], g_ux[..., None], g_res[..., None],
                             g_uxx[..., None])
    pieces = []
    for net in layout.nets:
        for gW, gb in op_grads[net.name]:
            pieces += [gW.reshape(R, -1), gb.reshape(R, -1)]
    return total, torch.cat(pieces, dim=1)
