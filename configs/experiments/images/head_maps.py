"""Cordonnier's figure from a checkpoint: for each first-layer head of a model with 2-D score
biases (model.positional quadratic2d or rel2d), the attention the head gives from its position
term alone (softmax over keys of the learned bias, content scores zero) to the keys around a
query at the centre of the grid (Cordonnier, Loukas & Jaggi 2020, "On the relationship between
self-attention and convolutional layers", figures 3 and 5). The bias is the one of
lib/ops/grid_bias.h: quadratic2d -alpha_h |delta - Delta_h|^2 from param [n_heads, 3] =
(Delta_y, Delta_x, alpha); rel2d param[h][(dy'+R)(2R+1) + dx'+R], offsets clipped to [-R, R].

usage: head_maps.py CHECKPOINT LAYER RADIUS
Prints one block per head: "head H kind K peak DY DX weight W local3x3 M entropy E" then the
(2 RADIUS + 1)^2 weights of the offsets dy, dx in -RADIUS..RADIUS, row by row. Needs h5py, numpy."""
import math
import sys

import h5py
import numpy as np
import yaml


def grid_of(cfg):
    m, d = cfg["model"], cfg["data"]
    p = int(m.get("patch_size", 1)) if m.get("input") in ("patches", "conv_patches") else 1
    return int(d.get("image_rows", 28)) // p, int(d.get("image_cols", 28)) // p


def bias_maps(f, cfg, layer):
    """(kind, [n_heads, rows, cols, rows, cols] biases b(h, query, key) over the grid)."""
    rows, cols = grid_of(cfg)
    kind = cfg["model"]["positional"]
    name = {"quadratic2d": "quadratic", "rel2d": "rel2d_bias"}.get(kind)
    if name is None:
        raise SystemExit(f"head_maps.py: model.positional is {kind}; the maps are for quadratic2d or rel2d")
    w = np.array(f[f"params/encoder.layers.{layer}.attn.{name}"], dtype=np.float64)
    y, x = np.meshgrid(np.arange(rows), np.arange(cols), indexing="ij")
    dy = y[None, None, :, :] - y[:, :, None, None]  # [qy, qx, ky, kx]: key row - query row
    dx = x[None, None, :, :] - x[:, :, None, None]
    if kind == "quadratic2d":
        b = -w[:, 2, None, None, None, None] * ((dy[None] - w[:, 0, None, None, None, None]) ** 2 +
                                                  (dx[None] - w[:, 1, None, None, None, None]) ** 2)
    else:
        R = int(cfg["model"].get("rel2d_clip", 3))
        idx = (np.clip(dy, -R, R) + R) * (2 * R + 1) + np.clip(dx, -R, R) + R
        b = w[:, idx]
    return kind, b


def main():
    path, layer, radius = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    f = h5py.File(path, "r")
    raw = f["config"][()]
    cfg = yaml.safe_load(raw.decode() if isinstance(raw, bytes) else raw)
    kind, b = bias_maps(f, cfg, layer)
    rows, cols = grid_of(cfg)
    qy, qx = rows // 2, cols // 2
    for h in range(b.shape[0]):
        s = b[h, qy, qx]
        p = np.exp(s - s.max())
        p /= p.sum()
        ky, kx = np.unravel_index(np.argmax(p), p.shape)
        local = p[max(qy - 1, 0):qy + 2, max(qx - 1, 0):qx + 2].sum()
        ent = -sum(v * math.log(v) for v in p.ravel() if v > 0)
        print(f"head {h} kind {kind} peak {ky - qy} {kx - qx} weight {p[ky, kx]:.4f} local3x3 {local:.4f} "
              f"entropy {ent:.4f}")
        for dy in range(-radius, radius + 1):
            print(" ".join(f"{p[qy + dy, qx + dx]:.5f}" if 0 <= qy + dy < rows and 0 <= qx + dx < cols else "nan"
                           for dx in range(-radius, radius + 1)))


if __name__ == "__main__":
    main()
