#!/usr/bin/python3
"""Writes the PyTorch parity fixtures for qkv's attention and encoder block.

Run with Debian's python3 (python3-torch 1.13, python3-h5py):
    /usr/bin/python3 tests/reference/make_fixtures.py
Output: tests/reference/fixtures/attention.h5, read by tests/lib/test_attention_parity.c.

Each group holds: x [T, d_model] (float64), offsets [B + 1] (int32), params/<qkv name>,
r [T, d_model] (a fixed random tensor), y = the module's output, and grads/<qkv name> and
grads/x = the gradients of sum(y * r). Attributes: n_heads, and for encoder blocks d_ff and
activation. A packed batch is run through torch one sentence at a time (batch of 1), which is
exactly the per-sentence independence qkv's packed layout must reproduce.

qkv <-> torch names: w_q/w_k/w_v = rows of in_proj_weight (stacked q;k;v), b_q/b_k/b_v = parts
of in_proj_bias, w_o/b_o = out_proj; encoder: ln1 = norm1, ffn.w1/b1 = linear1, ffn.w2/b2 =
linear2, ln2 = norm2 (see lib/nn/encoder.h).
"""
import os

import h5py
import numpy as np
import torch

torch.manual_seed(20240611)
torch.set_default_dtype(torch.float64)
HERE = os.path.dirname(os.path.abspath(__file__))


def mha_params(mha, prefix=""):
    d = mha.embed_dim
    w, b = mha.in_proj_weight, mha.in_proj_bias
    return {
        prefix + "w_q": w[:d], prefix + "w_k": w[d:2 * d], prefix + "w_v": w[2 * d:],
        prefix + "b_q": b[:d], prefix + "b_k": b[d:2 * d], prefix + "b_v": b[2 * d:],
        prefix + "w_o": mha.out_proj.weight, prefix + "b_o": mha.out_proj.bias,
    }


def run_packed(module_fn, x, lens):
    """Runs each sentence alone (batch of 1) and concatenates the outputs."""
    ys, start = [], 0
    for n in lens:
        ys.append(module_fn(x[start:start + n].unsqueeze(0)).squeeze(0))
        start += n
    return torch.cat(ys, 0)


class Sliced:
    """Gradients of the q/k/v slices, read from the leaf in_proj tensors after backward."""

    def __init__(self, mha, prefix=""):
        self.mha, self.prefix = mha, prefix

    def grads(self):
        d = self.mha.embed_dim
        gw, gb = self.mha.in_proj_weight.grad, self.mha.in_proj_bias.grad
        p = self.prefix
        return {p + "w_q": gw[:d], p + "w_k": gw[d:2 * d], p + "w_v": gw[2 * d:],
                p + "b_q": gb[:d], p + "b_k": gb[d:2 * d], p + "b_v": gb[2 * d:]}


def write(f, name, mha, prefix, other, x, lens, fn, attrs):
    y = run_packed(fn, x, lens)
    r = torch.rand_like(y) * 2 - 1
    (y * r).sum().backward()
    g = f.create_group(name)
    g["x"] = x.detach().numpy()
    g["offsets"] = np.concatenate([[0], np.cumsum(lens)]).astype(np.int32)
    g["r"] = r.detach().numpy()
    g["y"] = y.detach().numpy()
    g["grads/x"] = x.grad.numpy()
    sliced = Sliced(mha, prefix)
    for k, v in mha_params(mha, prefix).items():
        g["params/" + k] = v.detach().numpy()
    for k, v in sliced.grads().items():
        g["grads/" + k] = v.numpy()
    g["grads/" + prefix + "w_o"] = mha.out_proj.weight.grad.numpy()
    g["grads/" + prefix + "b_o"] = mha.out_proj.bias.grad.numpy()
    for k, p in other.items():
        g["params/" + k] = p.detach().numpy()
        g["grads/" + k] = p.grad.numpy()
    for k, v in attrs.items():
        g.attrs[k] = v


def main():
    os.makedirs(os.path.join(HERE, "fixtures"), exist_ok=True)
    path = os.path.join(HERE, "fixtures", "attention.h5")
    with h5py.File(path, "w") as f:
        d_model, n_heads = 8, 2
        for name, lens in (("mha_single", [6]), ("mha_packed", [3, 1, 7, 4])):
            mha = torch.nn.MultiheadAttention(d_model, n_heads, bias=True, batch_first=True)
            with torch.no_grad():  # non-zero biases, so that their paths are tested
                mha.in_proj_bias.uniform_(-0.5, 0.5)
                mha.out_proj.bias.uniform_(-0.5, 0.5)
            x = torch.randn(sum(lens), d_model, requires_grad=True)
            write(f, name, mha, "", {}, x, lens,
                  lambda s: mha(s, s, s, need_weights=False)[0], {"n_heads": n_heads})
        for name, act in (("encoder_relu", "relu"), ("encoder_gelu", "gelu")):
            lens = [3, 1, 7, 4]
            layer = torch.nn.TransformerEncoderLayer(d_model, n_heads, dim_feedforward=16, dropout=0.0,
                                                     activation=act, batch_first=True, norm_first=True)
            with torch.no_grad():
                for p in (layer.self_attn.in_proj_bias, layer.self_attn.out_proj.bias, layer.linear1.bias,
                          layer.linear2.bias, layer.norm1.bias, layer.norm2.bias):
                    p.uniform_(-0.5, 0.5)
                for p in (layer.norm1.weight, layer.norm2.weight):
                    p.uniform_(0.5, 1.5)
            other = {"ln1.gain": layer.norm1.weight, "ln1.bias": layer.norm1.bias,
                     "ffn.w1": layer.linear1.weight, "ffn.b1": layer.linear1.bias,
                     "ffn.w2": layer.linear2.weight, "ffn.b2": layer.linear2.bias,
                     "ln2.gain": layer.norm2.weight, "ln2.bias": layer.norm2.bias}
            x = torch.randn(sum(lens), d_model, requires_grad=True)
            write(f, name, layer.self_attn, "attn.", other, x, lens, layer,
                  {"n_heads": n_heads, "d_ff": 16, "activation": act})
    print("wrote", path, os.path.getsize(path), "bytes")


if __name__ == "__main__":
    main()
