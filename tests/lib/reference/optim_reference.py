#!/usr/bin/python3
"""Reference values for tests/lib/test_optim.c: three steps of SGD (momentum), Adam (L2 decay)
and AdamW (decoupled decay) on a fixed two-parameter problem with fixed gradients and a
different learning rate at each step.

Each optimizer runs twice, with torch.optim (float64) and with the update formulas written
out here in plain Python; the script checks that both agree to 1e-15 and prints the values
after each step as C literals. Run: /usr/bin/python3 tests/lib/reference/optim_reference.py
(Debian's python3-torch 1.13)."""
import math
import torch

W0 = [1.0, -2.0, 0.5]          # "w": weight decay applies
B0 = [0.3, -0.7]               # "b": no_weight_decay
GRADS = [                      # (w grad, b grad) at steps 1, 2, 3
    ([0.5, -1.0, 0.25], [0.1, 0.0]),
    ([-0.3, 0.8, 0.0], [-0.2, 0.05]),
    ([0.2, 0.1, -0.6], [0.4, -0.3]),
]
LRS = [0.1, 0.05, 0.02]
WD = 0.1
MU = 0.9
B1, B2, EPS = 0.9, 0.999, 1e-8


def run_torch(kind):
    w = torch.tensor(W0, dtype=torch.float64, requires_grad=True)
    b = torch.tensor(B0, dtype=torch.float64, requires_grad=True)
    groups = [{"params": [w], "weight_decay": WD}, {"params": [b], "weight_decay": 0.0}]
    if kind == "sgd":
        opt = torch.optim.SGD(groups, lr=LRS[0], momentum=MU)
    elif kind == "adam":
        opt = torch.optim.Adam(groups, lr=LRS[0], betas=(B1, B2), eps=EPS)
    else:
        opt = torch.optim.AdamW(groups, lr=LRS[0], betas=(B1, B2), eps=EPS)
    out = []
    for (gw, gb), lr in zip(GRADS, LRS):
        for g in opt.param_groups:
            g["lr"] = lr
        w.grad = torch.tensor(gw, dtype=torch.float64)
        b.grad = torch.tensor(gb, dtype=torch.float64)
        opt.step()
        out.append(w.tolist() + b.tolist())
    return out


def run_formula(kind):
    p = [list(W0), list(B0)]
    decay = [WD, 0.0]
    m = [[0.0] * len(x) for x in p]
    v = [[0.0] * len(x) for x in p]
    out = []
    for t, ((gw, gb), lr) in enumerate(zip(GRADS, LRS), start=1):
        for k, g in enumerate([gw, gb]):
            for j in range(len(g)):
                x, gj, wd = p[k][j], g[j], decay[k]
                if kind == "sgd":
                    m[k][j] = MU * m[k][j] + gj + wd * x
                    x = x - lr * m[k][j]
                else:
                    if kind == "adam":
                        gj = gj + wd * x
                    else:
                        x = x * (1 - lr * wd)
                    m[k][j] = B1 * m[k][j] + (1 - B1) * gj
                    v[k][j] = B2 * v[k][j] + (1 - B2) * gj * gj
                    mhat = m[k][j] / (1 - B1 ** t)
                    vhat = v[k][j] / (1 - B2 ** t)
                    x = x - lr * mhat / (math.sqrt(vhat) + EPS)
                p[k][j] = x
        out.append(p[0] + p[1])
    return out


for kind in ["sgd", "adam", "adamw"]:
    a, f = run_torch(kind), run_formula(kind)
    for ra, rf in zip(a, f):
        for x, y in zip(ra, rf):
            assert abs(x - y) <= 1e-15 * max(1.0, abs(x)), (kind, x, y)
    print(f"/* {kind}: w[0..2], b[0..1] after steps 1, 2, 3 */")
    print(f"static const double expected_{kind}[3][5] = {{")
    for row in a:
        print("    {" + ", ".join(f"{x:.17g}" for x in row) + "},")
    print("};")
