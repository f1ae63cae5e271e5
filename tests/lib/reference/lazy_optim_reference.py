#!/usr/bin/python3
"""Reference values for tests/lib/test_optim_lazy.c: three steps of the lazy (sparse) update
of lib/optim/optim.h (qkv_optim_set_rows) on a table of 4 rows x 2 columns, for AdamW, Adam
and SGD with momentum. At each step only some rows are touched (they alone have a gradient);
untouched rows keep value and state; bias corrections use the global step t.

The formulas are written out in plain Python. For Adam without weight decay and eps ~ 0 they
are checked against torch.optim.SparseAdam (the same update up to where eps enters), and with
every row touched at every step against torch.optim.AdamW (the dense update). Prints C
literals. Run: /usr/bin/python3 tests/lib/reference/lazy_optim_reference.py (python3-torch 1.13)."""
import math
import torch

P0 = [[0.5, -1.0], [0.25, 2.0], [-0.75, 0.1], [1.5, -0.3]]
STEPS = [  # (touched rows, their gradient rows)
    ([1, 3], [[0.2, -0.4], [0.6, 0.1]]),
    ([3], [[-0.3, 0.5]]),
    ([0, 1], [[0.05, 0.7], [-0.2, 0.0]]),
]
LRS = [0.1, 0.05, 0.02]
WD, MU = 0.1, 0.9
B1, B2, EPS = 0.9, 0.999, 1e-8


def run_formula(kind, steps=STEPS, eps=EPS, wd=WD):
    p = [list(r) for r in P0]
    m = [[0.0, 0.0] for _ in P0]
    v = [[0.0, 0.0] for _ in P0]
    out = []
    for t, ((rows, gs), lr) in enumerate(zip(steps, LRS), start=1):
        for r, g in zip(rows, gs):
            for j in range(2):
                x, gj = p[r][j], g[j]
                if kind == "sgd":
                    m[r][j] = MU * m[r][j] + gj + wd * x
                    x = x - lr * m[r][j]
                else:
                    if kind == "adam":
                        gj = gj + wd * x
                    else:
                        x = x * (1 - lr * wd)
                    m[r][j] = B1 * m[r][j] + (1 - B1) * gj
                    v[r][j] = B2 * v[r][j] + (1 - B2) * gj * gj
                    x = x - (lr / (1 - B1 ** t)) * m[r][j] / (math.sqrt(v[r][j]) / math.sqrt(1 - B2 ** t) + eps)
                p[r][j] = x
        out.append([x for row in p for x in row])
    return out


def run_sparse_adam():
    w = torch.tensor(P0, dtype=torch.float64, requires_grad=True)
    opt = torch.optim.SparseAdam([w], lr=LRS[0], betas=(B1, B2), eps=1e-300)  # eps > 0 is required; 1e-300 is 0 here
    out = []
    for (rows, gs), lr in zip(STEPS, LRS):
        opt.param_groups[0]["lr"] = lr
        w.grad = torch.sparse_coo_tensor([rows], torch.tensor(gs, dtype=torch.float64), (4, 2))
        opt.step()
        out.append(w.detach().flatten().tolist())
    return out


def run_dense_adamw(steps):
    w = torch.tensor(P0, dtype=torch.float64, requires_grad=True)
    opt = torch.optim.AdamW([w], lr=LRS[0], betas=(B1, B2), eps=EPS, weight_decay=WD)
    out = []
    for (rows, gs), lr in zip(steps, LRS):
        opt.param_groups[0]["lr"] = lr
        g = torch.zeros(4, 2, dtype=torch.float64)
        g[rows] = torch.tensor(gs, dtype=torch.float64)
        w.grad = g
        opt.step()
        out.append(w.detach().flatten().tolist())
    return out


def close(a, b, tol):
    return all(abs(x - y) <= tol * max(1.0, abs(x)) for ra, rb in zip(a, b) for x, y in zip(ra, rb))


assert close(run_sparse_adam(), run_formula("adam", eps=0.0, wd=0.0), 1e-12)
every = [([0, 1, 2, 3], [[0.1 * (r + 1) * s, -0.2 * s + r] for r in range(4)]) for s in (1, -2, 3)]
assert close(run_dense_adamw(every), run_formula("adamw", steps=every), 1e-15)
for kind in ["adamw", "adam", "sgd"]:
    print(f"/* lazy {kind}: the table's 8 values after steps 1, 2, 3 */")
    print(f"static const double expected_lazy_{kind}[3][8] = {{")
    for row in run_formula(kind):
        print("    {" + ", ".join(f"{x:.17g}" for x in row) + "},")
    print("};")
