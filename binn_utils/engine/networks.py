"""The four multilayer perceptrons of the ADR-BINN, stored as *batched* flat parameters.

Paper, "The training procedure and hyperparameters" and Algorithm 2: each MLP has
``h`` hidden layers of ``n`` tanh units, a SoftplusReLU output, Xavier-normal weights
and zero biases.  Replicates (independent initialisations) are stacked along a leading
axis so that ``R`` networks train as one batched model.

Where each network's parameters sit in the flat vector (``NetworkLayout``) and their
numpy evaluation are in ``layout``.
"""
from __future__ import annotations

import numpy as np
import torch

from .layout import SOFTPLUS_THRESHOLD, NetSpec, NetworkLayout


def xavier_init(layout: NetworkLayout, seed: int, dtype=torch.float64) -> torch.Tensor:
    """Flat parameter vector of one replicate: Xavier-normal weights, zero biases.

    Draws are made from a generator seeded with ``seed`` in network order u, D, V, G and
    layer order, so a replicate's initialisation depends on its seed only.
    """
    gen = torch.Generator().manual_seed(int(seed))
    flat = torch.zeros(layout.n_params, dtype=torch.float64)
    for net in layout.nets:
        for w_off, _b_off, fi, fo in net.layers:
            std = (2.0 / (fi + fo)) ** 0.5
            flat[w_off:w_off + fi * fo] = torch.randn(fi * fo, generator=gen, dtype=torch.float64) * std
    return flat.to(dtype)


def unpack(params, net: NetSpec):
    """(W (R, fi, fo), b (R, 1, fo)) per layer of one network.

    ``params`` is either a batched flat tensor (R, n_params) -- then these are slices --
    or the dict returned by ``leaf_views`` (offset -> tensor), used in training so that
    autograd sees one leaf per weight matrix instead of slicing one big leaf (slicing a
    leaf costs a full-size zero tensor per slice in the backward pass).
    """
    if isinstance(params, dict):
        return [(params[w], params[b]) for w, b, _fi, _fo in net.layers]
    R = params.shape[0]
    return [(params[:, w:w + fi * fo].reshape(R, fi, fo), params[:, b:b + fo].reshape(R, 1, fo))
            for w, b, fi, fo in net.layers]


def leaf_views(flat: torch.Tensor, layout: "NetworkLayout") -> dict:
    """Per-layer views of a flat (R, n_params) buffer, each an autograd leaf.

    Updating ``flat`` in place updates the views; ``flat_grad`` puts their gradients back
    in flat order.
    """
    R = flat.shape[0]
    out = {}
    for net in layout.nets:
        for w, b, fi, fo in net.layers:
            out[w] = flat[:, w:w + fi * fo].view(R, fi, fo).requires_grad_(True)
            out[b] = flat[:, b:b + fo].view(R, 1, fo).requires_grad_(True)
    return out


def flat_grad(grads, leaves: dict) -> torch.Tensor:
    """Concatenate per-leaf gradients (in ``leaves`` order) into (R, n_params)."""
    R = next(iter(leaves.values())).shape[0]
    return torch.cat([g.reshape(R, -1) for g in grads], dim=1)


# --------------------------------------------------------------------------- activations
ENGINE_VERSION = 2
"""Arithmetic version of the training engine, recorded in ``TrainResult.extra["engine"]``.

1: torch.tanh, gradients by autograd through the compiled jet.
2: tanh(z) evaluated as ``2 sigmoid(2 z) - 1`` (faster under the CPU compiler), gradients
   by the hand-written backward of the jet (``losses.loss_and_grad``), and on the CPU
   float denormals flushed to zero during the step (``kernels.flush_denormals``).  Equal
   to version 1 in exact arithmetic; float32 results differ at rounding level, amplified
   by training.
"""


def tanh(z):
    """tanh(z) = 2 sigmoid(2z) - 1: one exponential, which the CPU compiler vectorises well
    (its tanh is several times slower).  Absolute error ~ machine epsilon, like torch.tanh."""
    return 2.0 * torch.sigmoid(2.0 * z) - 1.0


def softplus(z):
    return torch.nn.functional.softplus(z, beta=1.0, threshold=SOFTPLUS_THRESHOLD)


def softplus_d1(z):
    """d softplus / dz, exactly as autograd differentiates torch's thresholded softplus."""
    return torch.where(z > SOFTPLUS_THRESHOLD, torch.ones_like(z), torch.sigmoid(z))


def softplus_d2(z):
    s = torch.sigmoid(z)
    return torch.where(z > SOFTPLUS_THRESHOLD, torch.zeros_like(z), s * (1.0 - s))


def _softplus_derivs(z):
    """First, second and third derivatives of the thresholded softplus at z."""
    s = torch.sigmoid(z)
    big = z > SOFTPLUS_THRESHOLD
    d2 = s * (1.0 - s)
    return (torch.where(big, torch.ones_like(z), s), torch.where(big, torch.zeros_like(z), d2),
            torch.where(big, torch.zeros_like(z), d2 * (1.0 - 2.0 * s)))


def _rows(t, a, b):
    """Rows a:b of t (R, N, n), or t itself when it is a broadcast row (N == 1)."""
    return t if t.shape[1] == 1 else t[:, a:b]


# --------------------------------------------------------------------------- forward passes
def mlp_value_fwd(flat, net: NetSpec, inp):
    layers = unpack(flat, net)
    h = inp
    hs = []
    for k, (W, b) in enumerate(layers):
        hs.append(h)
        z = torch.baddbmm(b, h, W)
        h = tanh(z) if k < len(layers) - 1 else z
    out = softplus(h) if net.output == "softplus" else h
    return out, (layers, hs, h)


def mlp_value(flat: torch.Tensor, net: NetSpec, inp: torch.Tensor) -> torch.Tensor:
    """Plain forward pass: inp (R, N, in_dim) -> (R, N, 1)."""
    return mlp_value_fwd(flat, net, inp)[0]


def mlp_value_bwd(net: NetSpec, saved, gout):
    """Gradients [(gW, gb) per layer] and d/d input of sum(gout * mlp_value)."""
    layers, hs, z = saved
    gz = gout * softplus_d1(z) if net.output == "softplus" else gout
    grads = []
    for k in range(len(layers) - 1, -1, -1):
        W, _b = layers[k]
        h = hs[k]
        grads.append((torch.bmm(h.transpose(1, 2), gz), gz.sum(dim=1, keepdim=True)))
        gh = torch.bmm(gz, W.transpose(1, 2))
        gz = gh * (1.0 - h * h) if k > 0 else gh
    grads.reverse()
    return grads, gz


def operator_fwd(flat, net: NetSpec, u):
    layers = unpack(flat, net)
    N = u.shape[1]
    W0, b0 = layers[0]
    z = torch.baddbmm(b0, u, W0)
    zu = W0.expand(-1, N, -1)
    cache = []
    for W, b in layers[1:]:
        h = tanh(z)
        s = 1.0 - h * h
        hu = s * zu
        H = torch.cat([h, hu], dim=1)
        cache.append((H, h, s, zu))
        zz = torch.bmm(H, W)
        z = zz[:, :N] + b
        zu = zz[:, N:]
    if net.output == "softplus":
        return softplus(z), softplus_d1(z) * zu, (layers, u, z, zu, cache)
    return z, zu, (layers, u, z, zu, cache)


def operator_with_slope(flat: torch.Tensor, net: NetSpec, u: torch.Tensor):
    """Operator value f(u) and slope f'(u), propagated analytically through the layers.

    u: (R, N, 1).  Value and tangent rows are stacked so each layer is a single batched
    matrix product.
    """
    f, fu, _ = operator_fwd(flat, net, u)
    return f, fu


def operator_bwd(net: NetSpec, saved, gf, gfu):
    """Hand-written backward of ``operator_with_slope``: given the gradients gf, gfu (R, N, 1)
    of a scalar with respect to f(u) and f'(u), the parameter gradients [(gW, gb) per layer]
    and the gradient with respect to u (R, N, 1)."""
    layers, u, z, zu, cache = saved
    N = u.shape[1]
    if net.output == "softplus":
        d1, d2, _ = _softplus_derivs(z)
        gz = gf * d1 + gfu * d2 * zu
        gzu = gfu * d1
    else:
        gz, gzu = gf, gfu
    grads = []
    for (W, _b), (H, h, s, zu_in) in zip(reversed(layers[1:]), reversed(cache)):
        G = torch.cat([gz, gzu], dim=1)
        grads.append((torch.bmm(H.transpose(1, 2), G), gz.sum(dim=1, keepdim=True)))
        gH = torch.bmm(G, W.transpose(1, 2))
        gh, ghu = gH[:, :N], gH[:, N:]
        gz = gh * s - 2.0 * (ghu * zu_in) * (h * s)
        gzu = ghu * s
    W0, _b0 = layers[0]
    grads.append((torch.bmm(u.transpose(1, 2), gz) + gzu.sum(dim=1, keepdim=True),
                  gz.sum(dim=1, keepdim=True)))
    grads.reverse()
    return grads, torch.bmm(gz, W0.transpose(1, 2))


def jet_fwd(flat, net: NetSpec, xt, n_pde: int, n_x: int):
    layers = unpack(flat, net)
    P, Q = n_pde, n_x
    M = xt.shape[1]
    W0, b0 = layers[0]
    z = torch.baddbmm(b0, xt, W0)
    cache = []
    if len(layers) == 1:  # affine u network: second derivatives vanish
        zx = W0[:, 0:1, :].expand(-1, Q, -1)
        zt = W0[:, 1:2, :].expand(-1, P, -1)
        zxx = torch.zeros_like(zt)
    else:
        h = tanh(z)
        s = 1.0 - h * h
        wx = W0[:, 0:1, :]
        wt = W0[:, 1:2, :]
        hx = s[:, :Q] * wx
        ht = s[:, :P] * wt
        hxx = -2.0 * h[:, :P] * s[:, :P] * (wx * wx)
        zx_in, zt_in, zxx_in = wx, wt, None
        for k, (W, b) in enumerate(layers[1:], start=1):
            H = torch.cat([h, hx, ht, hxx], dim=1)
            cache.append((H, h, s, zx_in, zt_in, zxx_in))
            zz = torch.bmm(H, W)
            z = zz[:, :M] + b
            zx = zz[:, M:M + Q]
            zt = zz[:, M + Q:M + Q + P]
            zxx = zz[:, M + Q + P:]
            if k == len(layers) - 1:
                break
            h = tanh(z)
            s = 1.0 - h * h
            hx = s[:, :Q] * zx
            ht = s[:, :P] * zt
            hxx = s[:, :P] * zxx - 2.0 * h[:, :P] * s[:, :P] * zx[:, :P] * zx[:, :P]
            zx_in, zt_in, zxx_in = zx, zt, zxx
    saved = (layers, xt, P, Q, z, zx, zt, zxx, cache)
    if net.output == "identity":
        return (z, zx, zt, zxx), saved
    d1 = softplus_d1(z)
    d2 = softplus_d2(z[:, :P])
    zxP = zx[:, :P]
    return (softplus(z), d1[:, :Q] * zx, d1[:, :P] * zt, d1[:, :P] * zxx + d2 * zxP * zxP), saved


def solution_jet(flat: torch.Tensor, net: NetSpec, xt: torch.Tensor, n_pde: int, n_x: int):
    """u_theta and its derivatives, propagated analytically (no nested autograd).

    xt: (R, M, 2) with rows ordered [PDE points (n_pde) | BC points | data points]; the
    first ``n_x`` rows (PDE + BC) need u_x, the first ``n_pde`` rows need u_t and u_xx.
    Returns u (R, M, 1), u_x (R, n_x, 1), u_t (R, n_pde, 1), u_xx (R, n_pde, 1).
    """
    return jet_fwd(flat, net, xt, n_pde, n_x)[0]


def jet_bwd(net: NetSpec, saved, gu, gux, gut, guxx):
    """Hand-written backward of ``solution_jet``: given the gradients of a scalar with respect
    to u (R, M, 1), u_x (R, Q, 1), u_t and u_xx (R, P, 1), the parameter gradients
    [(gW, gb) per layer].  Rows: [PDE (P) | BC (Q - P) | data (M - Q)]."""
    layers, xt, P, Q, z, zx, zt, zxx, cache = saved
    M = xt.shape[1]
    # through the output activation: u = f(z), u_x = f' z_x, u_t = f' z_t, u_xx = f' z_xx + f'' z_x^2
    if net.output == "softplus":
        d1, d2, d3 = _softplus_derivs(z)
        zxP = zx[:, :P]
        gz = torch.cat([gu[:, :P] * d1[:, :P] + gux[:, :P] * d2[:, :P] * zxP + gut * d2[:, :P] * zt
                        + guxx * (d2[:, :P] * zxx + d3[:, :P] * zxP * zxP),
                        gu[:, P:Q] * d1[:, P:Q] + gux[:, P:] * d2[:, P:Q] * zx[:, P:],
                        gu[:, Q:] * d1[:, Q:]], dim=1)
        gzx = torch.cat([gux[:, :P] * d1[:, :P] + guxx * (2.0 * d2[:, :P] * zxP),
                         gux[:, P:] * d1[:, P:Q]], dim=1)
        gzt = gut * d1[:, :P]
        gzxx = guxx * d1[:, :P]
    else:
        gz, gzx, gzt, gzxx = gu, gux, gut, guxx
    grads = []
    for (W, _b), (H, h, s, zx_in, zt_in, zxx_in) in zip(reversed(layers[1:]), reversed(cache)):
        G = torch.cat([gz, gzx, gzt, gzxx], dim=1)
        grads.append((torch.bmm(H.transpose(1, 2), G), gz.sum(dim=1, keepdim=True)))
        gH = torch.bmm(G, W.transpose(1, 2))
        gh, ghx = gH[:, :M], gH[:, M:M + Q]
        ght, ghxx = gH[:, M + Q:M + Q + P], gH[:, M + Q + P:]
        # h = tanh z, s = 1 - h^2; hx = s zx, ht = s zt, hxx = s zxx - 2 h s zx^2
        hsP, hsB = h[:, :P] * s[:, :P], h[:, P:Q] * s[:, P:Q]
        zxP, zxB = _rows(zx_in, 0, P), _rows(zx_in, P, Q)
        dhxx = -2.0 * zxP * zxP * (s[:, :P] * (1.0 - 3.0 * h[:, :P] * h[:, :P]))
        if zxx_in is not None:
            dhxx = dhxx - 2.0 * hsP * zxx_in
        gz = torch.cat([gh[:, :P] * s[:, :P] - 2.0 * hsP * (ghx[:, :P] * zxP + ght * zt_in) + ghxx * dhxx,
                        gh[:, P:Q] * s[:, P:Q] - 2.0 * hsB * (ghx[:, P:] * zxB),
                        gh[:, Q:] * s[:, Q:]], dim=1)
        gzx = torch.cat([ghx[:, :P] * s[:, :P] - 4.0 * ghxx * hsP * zxP, ghx[:, P:] * s[:, P:Q]], dim=1)
        gzt = ght * s[:, :P]
        gzxx = ghxx * s[:, :P]
    # first layer: z = xt W0 + b0, z_x = W0[0], z_t = W0[1], z_xx = 0
    gW0 = torch.bmm(xt.transpose(1, 2), gz) + torch.cat([gzx.sum(dim=1, keepdim=True),
                                                        gzt.sum(dim=1, keepdim=True)], dim=1)
    grads.append((gW0, gz.sum(dim=1, keepdim=True)))
    grads.reverse()
    return grads
