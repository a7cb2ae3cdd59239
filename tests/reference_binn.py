"""A small, obviously-correct reference BINN: one model, plain nested autograd.

Used only by the tests to prove the fast batched path (binn_utils.engine.losses/training)
computes the same losses and gradients.  Written independently of binn_utils.engine.networks'
derivative propagation: derivatives here come from torch.autograd with create_graph,
and the PDE residual differentiates the flux D(u) u_x - u V(u) directly.
"""
import torch
from torch import nn

from binn_utils.engine.networks import NetworkLayout


class RefMLP(nn.Module):
    def __init__(self, spec, dtype=torch.float64):
        super().__init__()
        self.output = spec.output
        self.linears = nn.ModuleList(nn.Linear(fi, fo, dtype=dtype) for _, _, fi, fo in spec.layers)

    def forward(self, h):
        for k, lin in enumerate(self.linears):
            h = lin(h)
            if k < len(self.linears) - 1:
                h = torch.tanh(h)
        if self.output == "softplus":
            h = nn.functional.softplus(h, beta=1.0, threshold=20.0)
        return h


class RefBINN(nn.Module):
    def __init__(self, layout: NetworkLayout, flat_r: torch.Tensor, dtype=torch.float64):
        super().__init__()
        self.layout = layout
        self.nets = nn.ModuleDict({spec.name: RefMLP(spec, dtype) for spec in layout.nets})
        with torch.no_grad():
            for spec in layout.nets:
                for lin, (w, b, fi, fo) in zip(self.nets[spec.name].linears, spec.layers):
                    lin.weight.copy_(flat_r[w:w + fi * fo].reshape(fi, fo).T.to(dtype))
                    lin.bias.copy_(flat_r[b:b + fo].to(dtype))

    def flat_grad(self):
        """Gradients of all parameters, arranged in the flat layout."""
        g = torch.zeros(self.layout.n_params, dtype=next(self.parameters()).dtype)
        for spec in self.layout.nets:
            for lin, (w, b, fi, fo) in zip(self.nets[spec.name].linears, spec.layers):
                g[w:w + fi * fo] = lin.weight.grad.T.reshape(-1)
                g[b:b + fo] = lin.bias.grad
        return g

    def op(self, name, u):
        return self.nets[name](u) if name in self.nets else torch.zeros_like(u)

    def losses(self, pde_xt, bc_xt, data_xt, data_u):
        """(L_data, L_PDE, L_BC) for one replicate, from the paper's equations."""
        u_net = self.nets["u"]
        l_data = ((u_net(data_xt)[:, 0] - data_u) ** 2).mean()

        x = pde_xt[:, :1].clone().requires_grad_(True)
        t = pde_xt[:, 1:].clone().requires_grad_(True)
        u = u_net(torch.cat([x, t], dim=1))
        ux, ut = torch.autograd.grad(u.sum(), (x, t), create_graph=True)
        flux = self.op("D", u) * ux - u * self.op("V", u)
        (dflux,) = torch.autograd.grad(flux.sum(), x, create_graph=True)
        res = ut - dflux - u * self.op("G", u)
        l_pde = (res ** 2).mean()

        xb = bc_xt[:, :1].clone().requires_grad_(True)
        ub = u_net(torch.cat([xb, bc_xt[:, 1:]], dim=1))
        (uxb,) = torch.autograd.grad(ub.sum(), xb, create_graph=True)
        n = bc_xt.shape[0] // 2
        l_bc = (uxb[:n] ** 2).mean() + (uxb[n:] ** 2).mean()
        return torch.stack([l_data, l_pde, l_bc])
