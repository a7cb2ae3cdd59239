"""The fast batched trainer against the plain-autograd reference (float64), and its contracts."""
import numpy as np
import pytest
import torch

from binn_utils.engine.losses import loss_and_grad, loss_components
from binn_utils.engine.networks import NetworkLayout, flat_grad, leaf_views, xavier_init
from binn_utils.engine.observations import Observations, make_observations
from binn_utils.engine import kernels
from binn_utils.engine.kernels import adam_update
from binn_utils.engine.training import TrainConfig, TrainingError, TrainState, train
from reference_binn import RefBINN

ARCHS = [
    dict(arch_u=(4, 32), arch_D=(4, 32), arch_V=(4, 32), arch_G=(4, 32)),
    dict(arch_u=(2, 8), arch_D=(1, 1), arch_V=(4, 1), arch_G=None),
    dict(arch_u=(6, 16), arch_D=(4, 4), arch_V=None, arch_G=(2, 3)),
    dict(arch_u=(3, 5), arch_D=(2, 4), arch_V=None, arch_G=None),
]


def _points(gen, R, P=17, nb=9, B=13, t_end=4.0):
    scale = torch.tensor([14.0, t_end], dtype=torch.float64)
    shift = torch.tensor([-7.0, 0.0], dtype=torch.float64)
    pde = torch.rand(R, P, 2, generator=gen, dtype=torch.float64) * scale + shift
    bx = torch.cat([torch.full((nb,), -7.0), torch.full((nb,), 7.0)]).double()
    bc = torch.stack([bx.expand(R, -1), t_end * torch.rand(R, 2 * nb, generator=gen, dtype=torch.float64)], 2)
    dxt = torch.rand(R, B, 2, generator=gen, dtype=torch.float64) * scale + shift
    du = torch.rand(R, B, generator=gen, dtype=torch.float64)
    return pde, bc, dxt, du


@pytest.mark.parametrize("archs", ARCHS)
def test_fast_losses_and_gradients_equal_reference(archs):
    layout = NetworkLayout.build(archs["arch_u"], archs["arch_D"], archs["arch_V"], archs["arch_G"])
    R = 3
    gen = torch.Generator().manual_seed(1)
    flat = torch.stack([xavier_init(layout, s) for s in range(R)])
    flat += 0.3 * torch.randn(flat.shape, generator=gen, dtype=torch.float64)  # non-zero biases too
    pde, bc, dxt, du = _points(gen, R)
    w = torch.tensor([[1.0, 0.1, 1e-3], [2.0, 10.0, 0.5], [0.3, 1e-4, 1.0]], dtype=torch.float64)
    leaves = leaf_views(flat.clone(), layout)
    comps = loss_components(leaves, layout, pde, bc, dxt, du)
    grads = flat_grad(torch.autograd.grad((comps * w).sum(), list(leaves.values())), leaves)
    for r in range(R):
        ref = RefBINN(layout, flat[r])
        c_ref = ref.losses(pde[r], bc[r], dxt[r], du[r])
        (c_ref * w[r]).sum().backward()
        g_ref = ref.flat_grad()
        np.testing.assert_allclose(comps[r].detach().numpy(), c_ref.detach().numpy(), rtol=1e-10, atol=0)
        assert torch.linalg.norm(grads[r] - g_ref) <= 1e-10 * torch.linalg.norm(g_ref)
        # and elementwise for every parameter that has a non-negligible gradient
        big = g_ref.abs() > 1e-6 * g_ref.abs().max()
        np.testing.assert_allclose(grads[r][big].numpy(), g_ref[big].numpy(), rtol=1e-8)


HAND_BACKWARD_ARCHS = ARCHS + [
    dict(arch_u=(1, 1), arch_D=(3, 7), arch_V=(1, 1), arch_G=(1, 1)),      # affine u, V, G networks
    dict(arch_u=(6, 128), arch_D=(5, 64), arch_V=(3, 9), arch_G=(4, 6)),   # deeper and wider
    dict(arch_u=(2, 3), arch_D=None, arch_V=(6, 5), arch_G=(5, 2)),        # V and G without D
    dict(arch_u=(4, 32), arch_D=None, arch_V=None, arch_G=(4, 32)),        # G only
]


@pytest.mark.parametrize("archs", HAND_BACKWARD_ARCHS)
@pytest.mark.parametrize("shift", [0.0, 21.0])
def test_hand_written_backward_equals_autograd(archs, shift):
    """losses.loss_and_grad (the training step: hand-written backward of the jet, the
    operator networks and the loss) == autograd through loss_components, in float64.
    shift > 20 puts the output layers' pre-activations above softplus' threshold (the
    linear branch, where its derivatives switch to 1, 0, 0)."""
    layout = NetworkLayout.build(archs["arch_u"], archs["arch_D"], archs["arch_V"], archs["arch_G"])
    R = 3
    gen = torch.Generator().manual_seed(5)
    flat = torch.stack([xavier_init(layout, s) for s in range(R)])
    flat += 0.3 * torch.randn(flat.shape, generator=gen, dtype=torch.float64)
    for net in layout.nets:  # the output bias
        b_off = net.layers[-1][1]
        flat[:, b_off] += shift * (1.0 + 0.1 * torch.arange(R))
    if shift:  # some replicates' points on each side of the threshold
        flat[0, layout.net("u").layers[-1][1]] -= shift
    pde, bc, dxt, du = _points(gen, R)
    w = torch.tensor([[1.0, 0.1, 1e-3], [2.0, 10.0, 0.5], [0.3, 1e-4, 1.0]], dtype=torch.float64)
    leaves = leaf_views(flat.clone(), layout)
    comps = loss_components(leaves, layout, pde, bc, dxt, du)
    total_ref = (comps * w).sum(dim=1)
    g_ref = flat_grad(torch.autograd.grad(total_ref.sum(), list(leaves.values())), leaves)
    total, grad = loss_and_grad(flat, layout, pde, bc, dxt, du, w)
    assert not total.requires_grad and not grad.requires_grad
    assert grad.shape == (R, layout.n_params)
    np.testing.assert_allclose(total.numpy(), total_ref.detach().numpy(), rtol=1e-12, atol=0)
    for r in range(R):
        assert torch.linalg.norm(grad[r] - g_ref[r]) <= 1e-10 * torch.linalg.norm(g_ref[r])
        big = g_ref[r].abs() > 1e-6 * g_ref[r].abs().max()
        np.testing.assert_allclose(grad[r][big].numpy(), g_ref[r][big].numpy(), rtol=1e-8)


@pytest.mark.slow
def test_compiled_step_equals_eager_and_is_not_recompiled_per_chunk_length(burgers_obs):
    """The compiled kernels (torch.compile, C++ wrapper) give the eager numbers in float64,
    and at R = 1 a run of another length (another chunk stride) reuses the compiled step."""
    from torch._dynamo.utils import counters
    cfg = TrainConfig(arch_u=(2, 6), arch_D=(2, 4), arch_V=(2, 3), dtype="float64", epochs=3,
                      batch_size=10 ** 6, clip_batch_to_data=True, val_n_pde=20, val_n_bc=5)
    eager = train(burgers_obs, cfg.replace(compile=False), seeds=[4])
    compiled = train(burgers_obs, cfg, seeds=[4])
    np.testing.assert_allclose(compiled.final, eager.final, rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(compiled.history["val_total"], eager.history["val_total"], rtol=1e-9)
    assert compiled.extra["engine"] == eager.extra["engine"] >= 2
    before = dict(counters["stats"])
    train(burgers_obs, cfg.replace(epochs=5), seeds=[4])
    assert counters["stats"].get("unique_graphs", 0) == before.get("unique_graphs", 0)


_PROBE = """
import json, sys
import numpy as np
from torch._dynamo.utils import counters
from binn_utils.engine.observations import make_observations
from binn_utils.engine.training import TrainConfig, train
R, B = int(sys.argv[1]), int(sys.argv[2])
cfg = TrainConfig(arch_u=(2, 6), arch_D=(2, 4), epochs=2, batch_size=B, val_n_pde=20, val_n_bc=5, dtype="float64")
obs = make_observations("diffusion", 1e-3)
res = train(obs, cfg, seeds=range(R))
counted = lambda: {k: counters[group][k] for group, keys in (("stats", ("unique_graphs",)), ("inductor", ("fxgraph_cache_miss",)),
                                                          ("aot_autograd", ("autograd_cache_miss",))) for k in keys}
out = counted()
eager = train(obs, cfg.replace(compile=False), seeds=range(R))
out["differ"] = float(np.max(np.abs(res.final - eager.final)) / np.max(np.abs(eager.final)))
train(obs, cfg.replace(dtype="float32"), seeds=range(R))
out["float32"] = {k: v - out[k] for k, v in counted().items()}
print(json.dumps(out))
"""


@pytest.mark.slow
def test_a_second_process_reuses_the_compiled_kernels(tmp_path):
    """The compiled kernels are kept in the compile cache (``compile_cache_dir``): a fresh
    process with another replicate count and another batch size compiles nothing (it loads
    the kernels; in float64 only Adam's few operations are traced again, in float32 nothing)
    and computes the uncompiled numbers (float64), where the first process compiled each
    kernel once."""
    import json
    import os
    import subprocess
    import sys
    from pathlib import Path
    root = Path(__file__).resolve().parents[1]
    env = {**os.environ, "PYTHONPATH": str(root), "OMP_NUM_THREADS": "1",
           "TORCHINDUCTOR_CACHE_DIR": str(tmp_path / "kernels")}

    def run(R, B):
        out = subprocess.run([sys.executable, "-c", _PROBE, str(R), str(B)], capture_output=True, text=True,
                             env=env, cwd=tmp_path, timeout=1800)
        assert out.returncode == 0, out.stderr[-3000:]
        assert "not kept across processes" not in out.stderr, out.stderr[-3000:]
        return json.loads(out.stdout.splitlines()[-1])

    first = run(3, 40)
    # traced and compiled once each: the step, the validation losses, Adam (the last partial
    # mini-batch uses the step's kernel); in float32 the same three, Adam with its constants
    assert first["unique_graphs"] == 3 and first["autograd_cache_miss"] >= 3, first
    assert first["float32"]["unique_graphs"] == 3, first
    assert first["differ"] < 1e-9, first
    second = run(5, 25)
    # only Adam (a few operations) is traced again in float64, its kernel loaded from the FX
    # graph cache; nothing in float32
    nothing = {"unique_graphs": 0, "fxgraph_cache_miss": 0, "autograd_cache_miss": 0}
    assert second == {"unique_graphs": 1, "fxgraph_cache_miss": 0, "autograd_cache_miss": 0,
                      "differ": second["differ"], "float32": nothing}, second
    assert second["differ"] < 1e-9, second


def _epoch_one_operation_at_a_time(run, perm_e, cp_e, cb_e):
    """An epoch composed step by step: each mini-batch gathered when its step comes, the
    step through the checked kernel entry, Adam traced with its float arguments, the step
    counter and the running loss added eagerly (the trainer's loop as it was written first)."""
    R, B, S, flat, config = run.R, run.B, run.S, run.flat, run.config
    assert len(run.blocks) == 1   # the step of all R at once (blocks: test_a_step_run_block_by_block_...)
    step = run.counters[0]
    b1, b2 = config.betas
    adam = kernels._by_device(adam_update, [(0,)] * 6) if config.compile else kernels._uncompiled(adam_update)
    train_acc = torch.zeros(R, dtype=run.dtype)
    for s in range(S):
        idx = perm_e[:, s * B:(s + 1) * B]
        batch = torch.gather(run.train_pts, 1, idx[..., None].expand(-1, -1, 3))
        bc_xt = torch.stack([run.bc_x.expand(R, -1), cb_e[:, s]], dim=2)
        total, grad = run.loss_and_grad(flat, run.leaves, cp_e[:, s].contiguous(), bc_xt,
                                        batch[..., :2].contiguous(), batch[..., 2].contiguous(), run.weights)
        step.add_(1)
        with torch.no_grad():
            adam(flat, grad, run.m, run.v, step, run.lr_t, b1, b2, config.eps)
        train_acc.add_(total)
    with torch.no_grad():
        run.epoch.add_(1)
        run._record_epoch(run.val_fn(run.leaves, run.val_pde, run.val_bc, run.val_xt, run.val_u), train_acc)


@pytest.mark.slow
@pytest.mark.parametrize("compile_", [True, False])
def test_the_epoch_loop_gives_the_numbers_of_the_step_composed_one_operation_at_a_time(monkeypatch, compile_):
    """The trainer's loop (the epoch's inputs made at once, step-major; the kernels bound once
    per run; on the CPU in float32 Adam, the step counter and the running loss in one saved
    kernel with the constants folded in) is the step composed one operation at a time, bit
    for bit, in float32 (whose numbers the results store holds): with a last mini-batch
    smaller than the others and per-replicate learning rates."""
    from binn_utils.engine import training
    obs = make_observations("diffusion", 1e-2)
    cfg = TrainConfig(arch_u=(2, 6), arch_D=(2, 4), epochs=4, chunk_epochs=3, batch_size=32, val_n_pde=20,
                      val_n_bc=5, compile=compile_)
    assert len(obs.train_idx) % 32
    kw = dict(seeds=[1, 2, 5], lr=[5e-4, 2e-3, 1e-2])
    loop = train(obs, cfg, **kw)
    monkeypatch.setattr(training._Run, "run_epoch", _epoch_one_operation_at_a_time)
    composed = train(obs, cfg, **kw)
    for a, b in ((loop.final, composed.final), (loop.best, composed.best), (loop.best_epoch, composed.best_epoch)):
        np.testing.assert_array_equal(a, b)
    for k in loop.history:
        np.testing.assert_array_equal(loop.history[k], composed.history[k])


def test_the_compile_cache_is_named_by_the_environment_or_under_the_user_cache(monkeypatch, tmp_path):
    from binn_utils.engine.kernels import COMPILE_CACHE_ENV, compile_cache_dir
    monkeypatch.setenv(COMPILE_CACHE_ENV, str(tmp_path / "mine"))
    assert compile_cache_dir() == str(tmp_path / "mine")
    monkeypatch.delenv(COMPILE_CACHE_ENV)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert compile_cache_dir() == str(tmp_path / "xdg" / "binn" / "torchinductor")


def test_batched_adam_equals_separate_torch_adams():
    R, n = 4, 50
    gen = torch.Generator().manual_seed(2)
    p0 = torch.randn(R, n, generator=gen, dtype=torch.float64)
    lrs = torch.tensor([5e-4, 1e-2, 0.3, 5e-7], dtype=torch.float64)
    grads = [torch.randn(R, n, generator=gen, dtype=torch.float64) for _ in range(7)]
    flat, m, v = p0.clone(), torch.zeros_like(p0), torch.zeros_like(p0)
    step = torch.zeros((), dtype=torch.float64)
    for g in grads:
        step += 1
        adam_update(flat, g, m, v, step, lrs[:, None], 0.9, 0.999, 1e-8)
    for r in range(R):
        p = p0[r].clone().requires_grad_(True)
        opt = torch.optim.Adam([p], lr=float(lrs[r]), betas=(0.9, 0.999), eps=1e-8)
        for g in grads:
            p.grad = g[r].clone()
            opt.step()
        np.testing.assert_allclose(flat[r].numpy(), p.detach().numpy(), rtol=1e-12, atol=1e-15)


CFG = TrainConfig(arch_u=(3, 8), arch_D=(2, 4), arch_V=(2, 4), epochs=6, dtype="float64", compile=False,
                  chunk_epochs=4)


@pytest.fixture(scope="module")
def burgers_obs():
    return make_observations("burgers", 1e-3)


def test_replicate_result_independent_of_batch(burgers_obs):
    together = train(burgers_obs, CFG, seeds=[3, 7, 11], lr=[5e-4, 1e-3, 2e-3], w_pde=[0.1, 1.0, 0.01])
    alone = train(burgers_obs, CFG, seeds=[7], lr=[1e-3], w_pde=[1.0])
    np.testing.assert_allclose(together.final[1], alone.final[0], rtol=1e-10, atol=1e-12)
    for k in together.history:
        np.testing.assert_allclose(together.history[k][1], alone.history[k][0], rtol=1e-10)


def test_training_is_deterministic_and_records_history(burgers_obs):
    a = train(burgers_obs, CFG, seeds=[1, 2])
    b = train(burgers_obs, CFG, seeds=[1, 2])
    np.testing.assert_array_equal(a.final, b.final)
    np.testing.assert_array_equal(a.history["val_total"], b.history["val_total"])
    assert a.history["val_total"].shape == (2, CFG.epochs)
    assert a.epochs_run == CFG.epochs
    assert a.steps_per_epoch == int(np.ceil(len(burgers_obs.train_idx) / CFG.batch_size))
    # weighted total is the weighted sum of the recorded components
    w = a.weights[0]
    total = w[0] * a.history["val_data"] + w[1] * a.history["val_pde"] + w[2] * a.history["val_bc"]
    np.testing.assert_allclose(total, a.history["val_total"], rtol=1e-12)
    # best parameters are those of the recorded minimum
    assert np.all(a.best_epoch == np.argmin(a.history["val_total"], axis=1) + 1)
    assert a.status == ["ok", "ok"]
    # a different seed gives a different initialisation
    assert not np.allclose(a.final[0], a.final[1])


def test_training_reduces_validation_loss():
    obs = make_observations("diffusion", 1e-3)
    res = train(obs, CFG.replace(epochs=40, chunk_epochs=40, lr=2e-3), seeds=[0, 1])
    first, last = res.history["val_total"][:, 0], res.history["val_total"][:, -1]
    assert np.all(last < 0.5 * first)


def test_divergent_replicate_gets_failure_status_not_crash(burgers_obs):
    layout_n = train(burgers_obs, CFG.replace(epochs=1), seeds=[0]).final.shape[1]
    init = np.stack([xavier_init(train(burgers_obs, CFG.replace(epochs=1), seeds=[0]).layout, s).numpy()
                     for s in (0, 1)])
    init[1] *= 1e300  # overflows to inf in the loss
    assert init.shape[1] == layout_n
    res = train(burgers_obs, CFG.replace(epochs=3), seeds=[0, 1], initial_params=init)
    assert res.status[0] == "ok"
    assert res.status[1].startswith("diverged")
    assert np.all(np.isfinite(res.history["val_total"][0]))


@pytest.mark.parametrize("kwargs, message", [
    (dict(config=TrainConfig(batch_size=1000)), "larger than the"),
    (dict(config=TrainConfig(lr=-1.0)), "learning rate"),
    (dict(config=TrainConfig(w_pde=-0.1)), "w_pde"),
    (dict(config=TrainConfig(epochs=0)), "epochs"),
    (dict(config=TrainConfig(arch_D=(0, 3))), "hidden_layers"),
    (dict(mechanisms=("D", "X")), "mechanisms"),
    (dict(lr=[1e-3, 1e-3, 1e-3]), "3 values for 2 replicates"),
    (dict(seeds=[]), "at least one seed"),
    (dict(seeds=[7, 7]), "replicates 0 and 1 have the same seed 7"),
    (dict(seeds=[1.7, 2]), r"seeds must be integers, got 1\.7"),
    (dict(seeds=[2 ** 64]), r"seeds must be in \[0, 2\*\*63 - 1\]"),
    (dict(seeds=[-1]), r"seeds must be in"),
    (dict(w_data=[0.0, 1.0]), "w_data values must be finite and > 0"),
    (dict(device="tpu"), "device"),
    (dict(device="no-such-device"), "unknown device"),
])
def test_bad_training_input_is_rejected_clearly(burgers_obs, kwargs, message):
    kwargs.setdefault("seeds", [0, 1])
    with pytest.raises(TrainingError, match=message):
        train(burgers_obs, **kwargs)


@pytest.mark.parametrize("field, value, message", [
    ("epochs", 1.5, "epochs must be a positive integer, got 1.5"),
    ("epochs", 0, "epochs must be a positive integer, got 0"),
    ("arch_u", (4.7, 32.9), "hidden_layers must be an integer >= 1, got 4.7"),
    ("arch_D", (4, 32.0), "width must be an integer >= 1, got 32.0"),
    ("eps", -1.0, "eps must be > 0"),
    ("eps", float("nan"), "eps must be finite"),
    ("lr", "1e-3", r"lr must be a number, got '1e-3' \(str\)"),
    ("lr", True, "lr must be a number"),
    ("w_data", 0.0, "w_data must be > 0"),
    ("w_pde", float("inf"), "w_pde must be finite"),
    ("betas", (0.9, 1.0), r"beta2 must be in \[0, 1\)"),
    ("betas", 0.9, "betas must be a pair"),
    ("time_budget_s", "60", "time_budget_s must be a number"),
    ("compile", "no", "compile must be True or False"),
])
def test_config_values_that_would_be_truncated_or_meaningless_are_errors(field, value, message):
    with pytest.raises(TrainingError, match=message):
        TrainConfig(**{field: value}).validate()


def test_pairs_of_identical_replicates_are_rejected_but_differing_ones_are_not(burgers_obs):
    from binn_utils.store.setting import Setting
    cfg = CFG.replace(epochs=1)
    with pytest.raises(TrainingError, match="same seed 7 and the same dataset"):
        Setting("t", "dup", "diffusion", 1e-3, False, (0, 0), (7, 7), cfg)
    Setting("t", "ok", "diffusion", 1e-3, False, (0, 1), (7, 7), cfg)      # other data: distinct
    with pytest.raises(TrainingError, match="seeds must be integers"):
        Setting("t", "float", "diffusion", 1e-3, False, (0,), (1.7,), cfg)
    with pytest.raises(TrainingError, match="noise variance must be >= 0"):
        Setting("t", "noise", "diffusion", -1.0, False, (0,), (0,), cfg)
    # the same seed with another learning rate is another network
    res = train(burgers_obs, cfg, seeds=[7, 7], lr=[1e-3, 2e-3])
    assert not np.array_equal(res.final[0], res.final[1])


@pytest.mark.parametrize("kw, message", [(dict(epochs=0), "epochs must be a positive integer, got 0"),
                                         (dict(epochs=1.5), "epochs must be a positive integer, got 1.5"),
                                         (dict(seeds=0), "seeds must be a positive integer, got 0"),
                                         (dict(seeds=-1), "seeds must be a positive integer")])
def test_study_overrides_are_never_replaced_by_defaults_or_truncated(kw, message):
    from binn_utils import studies
    with pytest.raises(TrainingError, match=message):
        studies.learning_rate_study("quick", **kw)
    assert studies.learning_rate_study("quick", epochs=3, seeds=1)[0].config.epochs == 3


def test_full_batch_clipping_is_explicit(burgers_obs):
    res = train(burgers_obs, CFG.replace(epochs=1, batch_size=640, clip_batch_to_data=True), seeds=[0])
    assert res.steps_per_epoch == 1
    assert res.extra["batch_size_used"] == len(burgers_obs.train_idx)


def test_observations_reject_nan_and_bad_noise():
    with pytest.raises(ValueError, match="NaN"):
        Observations("mine", x=[0, 1, 2], t=[0, 1], u_obs=[[0, 1, np.nan], [0, 1, 2]])
    with pytest.raises(ValueError, match="noise variance"):
        make_observations("diffusion", -1e-3)
    with pytest.raises(ValueError, match="shape"):
        Observations("mine", x=[0, 1, 2], t=[0, 1], u_obs=[[0, 1], [0, 1]])


def test_observations_are_seeded_and_split_80_10_10():
    a = make_observations("diffusion", 1e-2, dataset=3)
    b = make_observations("diffusion", 1e-2, dataset=3)
    c = make_observations("diffusion", 1e-2, dataset=4)
    np.testing.assert_array_equal(a.u_obs, b.u_obs)
    np.testing.assert_array_equal(a.train_idx, b.train_idx)
    assert not np.allclose(a.u_obs, c.u_obs)
    n = a.n_points
    assert len(a.train_idx) == round(0.8 * n) and len(a.val_idx) == round(0.1 * n)
    allidx = np.concatenate([a.train_idx, a.val_idx, a.test_idx])
    assert np.array_equal(np.sort(allidx), np.arange(n))
    # noise has the requested variance (loose statistical check, 497 points)
    resid = (a.u_obs - a.u_clean).ravel()
    assert 0.7e-2 < resid.var() < 1.3e-2
    assert np.array_equal(make_observations("diffusion", 0.0).u_obs, a.u_clean)


@pytest.mark.skipif(torch.cuda.is_available(), reason="this machine has a GPU")
def test_asking_for_a_missing_gpu_is_a_clear_error(burgers_obs):
    with pytest.raises(TrainingError, match="no CUDA GPU"):
        train(burgers_obs, CFG.replace(epochs=1), seeds=[0], device="cuda")


def test_explicit_cpu_device_gives_the_default_numbers(burgers_obs):
    a = train(burgers_obs, CFG.replace(epochs=2), seeds=[5])
    b = train(burgers_obs, CFG.replace(epochs=2), seeds=[5], device="cpu")
    np.testing.assert_array_equal(a.final, b.final)
    assert b.extra["device"].startswith("cpu")


def test_drawing_in_threads_gives_the_same_numbers(burgers_obs):
    """Each replicate draws from its own generator in a fixed order: drawing the next chunk
    of epochs in a thread pool (as on a GPU) changes nothing; a run split over chunks of 2 and 4
    epochs also does not (the draws are per epoch, in order)."""
    cfg = CFG.replace(epochs=5, chunk_epochs=2)
    inline = train(burgers_obs, cfg, seeds=[1, 2, 3], lr=[1e-3, 5e-3, 2e-3])
    threaded = train(burgers_obs, cfg, seeds=[1, 2, 3], lr=[1e-3, 5e-3, 2e-3], draw_threads=2)
    np.testing.assert_array_equal(inline.final, threaded.final)
    np.testing.assert_array_equal(inline.best, threaded.best)
    for k in inline.history:
        np.testing.assert_array_equal(inline.history[k], threaded.history[k])


def test_cuda_graph_needs_a_gpu(burgers_obs):
    with pytest.raises(TrainingError, match="cuda_graph=True needs a CUDA device"):
        train(burgers_obs, CFG.replace(epochs=1), seeds=[0], cuda_graph=True)


@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA GPU")
def test_cuda_graph_replays_exactly_what_eager_cuda_runs(burgers_obs):
    """On a GPU the epoch is captured once as a CUDA graph: the same kernels as running it
    eagerly, so the same numbers bit for bit (float64 and the default float32); a
    diverging replicate is frozen inside the graph as it is eagerly."""
    for cfg in (CFG, CFG.replace(dtype="float32", compile=True)):
        kw = dict(seeds=[1, 2, 3], lr=[1e-3, 5e-3, 2e-3], device="cuda")
        graph = train(burgers_obs, cfg, cuda_graph=True, **kw)
        eager = train(burgers_obs, cfg, cuda_graph=False, **kw)
        assert graph.extra["cuda_graph"] and not eager.extra["cuda_graph"]
        np.testing.assert_array_equal(graph.final, eager.final)
        np.testing.assert_array_equal(graph.best_epoch, eager.best_epoch)
        for k in graph.history:
            np.testing.assert_array_equal(graph.history[k], eager.history[k])
    init = np.stack([xavier_init(graph.layout, s).numpy() for s in (0, 1)])
    init[1] *= 1e300
    res = train(burgers_obs, CFG.replace(epochs=3), seeds=[0, 1], initial_params=init, device="cuda")
    assert res.status[0] == "ok" and res.status[1].startswith("diverged at epoch 1")


@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA GPU")
def test_gpu_float64_agrees_with_the_cpu_to_rounding(burgers_obs):
    cpu = train(burgers_obs, CFG, seeds=[4, 5])
    gpu = train(burgers_obs, CFG, seeds=[4, 5], device="cuda")
    np.testing.assert_allclose(gpu.final, cpu.final, rtol=1e-8, atol=1e-10)


@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_stopping_at_a_checkpoint_and_resuming_gives_the_same_run(burgers_obs, dtype):
    """A run stopped at a chunk boundary and resumed from its state (twice, once through
    the arrays a checkpoint file holds) is the uninterrupted run bit for bit: parameters,
    best parameters and epochs, history, statuses (a replicate that diverged before the
    checkpoint stays frozen after it)."""
    cfg = CFG.replace(epochs=7, chunk_epochs=2, dtype=dtype)
    layout = train(burgers_obs, cfg.replace(epochs=1), seeds=[0]).layout
    init = np.stack([xavier_init(layout, s).numpy() for s in (1, 2, 3)])
    init[2] *= 1e300
    kw = dict(seeds=[1, 2, 3], lr=[1e-3, 5e-3, 2e-3], initial_params=init)
    whole = train(burgers_obs, cfg, **kw)
    assert whole.status[:2] == ["ok", "ok"] and whole.status[2] == "diverged at epoch 1"
    first = train(burgers_obs, cfg, stop_at_epoch=3, **kw)
    state = first.extra["state"]
    assert first.epochs_run == state.epoch == 4          # the next chunk boundary
    second = train(burgers_obs, cfg, resume=state, stop_at_epoch=5, **kw)
    state2 = TrainState.from_arrays({k: np.array(v) for k, v in second.extra["state"].to_arrays().items()})
    assert state2.epoch == 6
    last = train(burgers_obs, cfg, resume=state2, **kw)
    assert "state" not in last.extra and last.epochs_run == 7
    np.testing.assert_array_equal(last.final, whole.final)
    np.testing.assert_array_equal(last.best, whole.best)
    np.testing.assert_array_equal(last.best_epoch, whole.best_epoch)
    assert last.status == whole.status
    for k in whole.history:
        np.testing.assert_array_equal(last.history[k], whole.history[k])


def test_resuming_from_a_state_that_does_not_fit_is_an_error(burgers_obs):
    cfg = CFG.replace(epochs=6, chunk_epochs=2)
    state = train(burgers_obs, cfg, seeds=[1, 2], stop_at_epoch=2).extra["state"]
    with pytest.raises(TrainingError, match="parameters"):
        train(burgers_obs, cfg, seeds=[1, 2, 3], resume=state)
    with pytest.raises(TrainingError, match="not a chunk boundary"):
        train(burgers_obs, cfg.replace(chunk_epochs=3), seeds=[1, 2], resume=state)
    with pytest.raises(TrainingError, match="stop_at_epoch"):
        train(burgers_obs, cfg, seeds=[1, 2], stop_at_epoch=0)


def test_replicate_blocks_cover_the_replicates_in_blocks_of_at_least_the_size_asked():
    from binn_utils.engine.kernels import PARAMETERS_PER_BLOCK, replicate_blocks
    from binn_utils.engine.training import build_layout
    lay = build_layout(TrainConfig(), ("D",))
    cpu = torch.device("cpu")
    for R, block in [(60, 2), (100, 38), (7, 2), (9, 4), (5, 3), (1, 2), (75, 10)]:
        blocks = replicate_blocks(R, lay, cpu, block)
        assert [b[0] for b in blocks[1:]] == [b[1] for b in blocks[:-1]] and blocks[0][0] == 0 and blocks[-1][1] == R
        sizes = [j - i for i, j in blocks]
        assert min(sizes) >= min(block, R) and (len(blocks) == 1 or max(sizes) < 2 * block), (R, block, sizes)
    assert replicate_blocks(60, lay, torch.device("cuda"), 2) == [(0, 60)]   # one block on a GPU
    assert replicate_blocks(60, lay, cpu, 2, compiled_float32=False) == [(0, 60)]   # in line or float64: one
    default = replicate_blocks(100, lay, cpu)    # the (4, 32) networks: 6,562 parameters a replicate
    assert PARAMETERS_PER_BLOCK // lay.n_params == 38 and [j - i for i, j in default] == [50, 50]
    big = build_layout(TrainConfig(arch_u=(6, 128)), ("D",))
    assert len(replicate_blocks(60, big, cpu)) == 30   # the noise study's (6, 128): blocks of two


@pytest.mark.slow
@pytest.mark.parametrize("dtype, compile_", [("float32", True), ("float64", False)])
def test_a_step_run_block_by_block_gives_one_batchs_numbers_bit_for_bit(burgers_obs, dtype, compile_):
    """The CPU's step through blocks of replicates (blocks of 2, 2 and 3, one replicate
    diverging, per-replicate learning rates, a stop and a resume in between) is the step over
    all seven at once, bit for bit: float32 compiled (the store's numbers), and float64 in line,
    which keeps one block (its products round differently by block size)."""
    cfg = TrainConfig(arch_u=(2, 6), arch_D=(2, 4), epochs=5, chunk_epochs=2, batch_size=32, val_n_pde=20, val_n_bc=5,
                      dtype=dtype, compile=compile_)
    layout = train(burgers_obs, cfg.replace(epochs=1), seeds=[0]).layout
    init = np.stack([xavier_init(layout, s).numpy() for s in range(1, 8)])
    init[4] *= 1e300
    kw = dict(seeds=list(range(1, 8)), lr=[1e-3, 5e-3, 2e-3, 1e-2, 1e-3, 4e-3, 3e-3], initial_params=init)
    one = train(burgers_obs, cfg, replicate_block=7, **kw)
    assert one.status[4].startswith("diverged") and one.status.count("ok") == 6
    first = train(burgers_obs, cfg, replicate_block=2, stop_at_epoch=2, **kw)
    blocks = train(burgers_obs, cfg, replicate_block=2, resume=first.extra["state"], **kw)
    for a, b in ((one.final, blocks.final), (one.best, blocks.best), (one.best_epoch, blocks.best_epoch)):
        np.testing.assert_array_equal(a, b)
    assert one.status == blocks.status
    for k in one.history:
        np.testing.assert_array_equal(one.history[k], blocks.history[k])


@pytest.mark.parametrize("block", [1, 0, 2.5, "2"])
def test_a_replicate_block_below_two_or_not_an_integer_is_an_error(burgers_obs, block):
    with pytest.raises(TrainingError, match="replicate_block must be an integer of at least 2"):
        train(burgers_obs, CFG, seeds=[1, 2], replicate_block=block)
