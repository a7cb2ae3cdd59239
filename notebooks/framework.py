# ---
# jupyter:
#   jupytext:
#     formats: py:percent
#     text_representation:
#       extension: .py
#       format_name: percent
#       format_version: '1.3'
#       jupytext_version: 1.19.6
#   kernelspec:
#     display_name: Python 3 (ipykernel)
#     language: python
#     name: python3
# ---

# %% [markdown]
# # The ADR-BINN framework (Fig. 1)
#
# *Placeholder chapter.* It proves the build pipeline end to end (Jupytext source,
# papermill parameters, nbval check, book execution); the real content replaces it.

# %% tags=["parameters"]
preset = "quick"
output_dir = ""

# %%
from pathlib import Path

import matplotlib.pyplot as plt
import numpy as np

x = np.linspace(-7.0, 7.0, 71)
u0 = 0.5 * np.cos(np.pi * x / 7.0) + 0.5
print(f"preset={preset}, mass of u(x,0) = {np.trapezoid(u0, x):.6f}")

# %% mystnb={"figure": {"caption": "Initial condition of the diffusion benchmark, $u(x,0)=\\tfrac12\\cos(\\pi x/7)+\\tfrac12$ (placeholder figure).", "name": "fig-framework-placeholder"}}
fig, ax = plt.subplots(figsize=(5, 3))
ax.plot(x, u0, color="C0")
ax.set_xlabel("$x$")
ax.set_ylabel("$u(x,0)$")
fig.tight_layout()
if output_dir:
    Path(output_dir).mkdir(parents=True, exist_ok=True)
    fig.savefig(Path(output_dir) / "framework_placeholder.png", dpi=150)
plt.show()
