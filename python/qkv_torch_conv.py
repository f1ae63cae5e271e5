#!/usr/bin/python3
"""qkv's 2-D convolutions in PyTorch (qkv_torch_dense.py builds image models from them), with
qkv's parameter names: the block of lib/nn/conv2d_block.h, the convolutional stem of the
conv_patches input (models/conv_patches_input.c) and the cnn2d encoder (models/cnn2d_encoder.c).

    block (lib/nn/conv2d_block.h): y = Pool(act(LN(Conv2d(x)))): a k x k convolution of stride 1
        and zero padding (k - 1) / 2, layer norm over each cell's channels, GELU (erf) or ReLU,
        then with model.cnn2d_pool a 2 x 2 window of stride 2 (max or avg), rounded down,
        skipped on a grid of one row or column. <prefix>.conv.weight [d_out, d_in, k, k] and
        .conv.bias are nn.Conv2d's, <prefix>.ln.gain and .ln.bias the layer norm's.
    conv_patches input: the batch's p x p patches put back into the image [B, channels, rows,
        cols] -> model.stem_layers blocks of 3 x 3 convolutions to model.stem_channels (no
        pooling) -> a p x p convolution of stride p to d_model (input.proj.w [d_model, c, p, p],
        input.proj.b) -> the (rows/p) x (cols/p) tokens row-major, after input.cls with
        model.cls_token.
    cnn2d encoder: the grid's tokens [B, rows * cols, d_model] as an image of d_model channels
        -> model.n_layers blocks (encoder.layers.<i>, model.cnn_kernel, model.cnn2d_pool) -> the
        maximum of each channel over the cells left -> that vector at every token of the image.
"""
import torch
import torch.nn.functional as F

from qkv_torch_layers import LayerNorm

STEM_KERNEL = 3  # models/conv_patches_input.c


class Conv2dBlock(torch.nn.Module):
    """lib/nn/conv2d_block.h on images [B, d_in, rows, cols] -> [B, d_out, rows', cols']."""

    def __init__(self, d_in, d_out, k, pool, m):
        super().__init__()
        self.conv = torch.nn.Conv2d(d_in, d_out, k, padding=(k - 1) // 2)
        self.ln = LayerNorm(d_out, m["ln_eps"] or 1e-5)
        self.act = F.gelu if m["activation"] == "gelu" else F.relu
        self.pool = pool

    def forward(self, x):
        h = self.ln(self.conv(x).permute(0, 2, 3, 1))  # the norm over each cell's channels
        h = self.act(h).permute(0, 3, 1, 2)
        if self.pool == "none" or h.shape[2] < 2 or h.shape[3] < 2:
            return h
        return (F.max_pool2d if self.pool == "max" else F.avg_pool2d)(h, 2, 2)


class ConvPatchesInput(torch.nn.Module):
    """The conv_patches input: token vectors [B, L, p * p * channels] (the patches input's,
    with the prefix rows first) -> [B, L, d_model]."""

    def __init__(self, m, grid, channels):
        super().__init__()
        self.grid, self.p, self.channels = grid, m["patch_size"], channels
        c, d = channels, m["d_model"]
        self.stem = torch.nn.ModuleList()
        for _ in range(m["stem_layers"]):
            self.stem.append(Conv2dBlock(c, m["stem_channels"], STEM_KERNEL, "none", m))
            c = m["stem_channels"]
        self.proj = torch.nn.Module()
        self.proj.w = torch.nn.Parameter(torch.empty(d, c, self.p, self.p))
        self.proj.b = torch.nn.Parameter(torch.zeros(d))
        if grid.n_prefix:
            self.cls = torch.nn.Parameter(torch.zeros(d))

    def image(self, dense):
        """The patches [B, L, p * p * channels] (each row-major, channels innermost) as the
        images [B, channels, rows, cols]."""
        g, p, ch = self.grid, self.p, self.channels
        x = dense[:, g.n_prefix:].reshape(dense.shape[0], g.rows, g.cols, p, p, ch)
        return x.permute(0, 5, 1, 3, 2, 4).reshape(dense.shape[0], ch, g.rows * p, g.cols * p)

    def forward(self, dense):
        x = self.image(dense)
        for blk in self.stem:
            x = blk(x)
        y = F.conv2d(x, self.proj.w, self.proj.b, stride=self.p).flatten(2).transpose(1, 2)  # [B, cells, d]
        if self.grid.n_prefix:
            y = torch.cat([self.cls.expand(y.shape[0], 1, -1), y], 1)
        return y


class CNN2dEncoder(torch.nn.Module):
    """model.encoder: cnn2d on the grid's tokens [B, rows * cols, d_model] (no prefix tokens)."""

    def __init__(self, m, grid):
        super().__init__()
        if grid.n_prefix:
            raise ValueError("model.encoder cnn2d reads a grid without prefix tokens (no [CLS])")
        d, self.grid = m["d_model"], grid
        self.layers = torch.nn.ModuleList([Conv2dBlock(d, d, m["cnn_kernel"], m["cnn2d_pool"], m)
                                           for _ in range(m["n_layers"])])

    def forward(self, x, pad):
        B, L, d = x.shape
        h = x.reshape(B, self.grid.rows, self.grid.cols, d).permute(0, 3, 1, 2)
        for blk in self.layers:
            h = blk(h)
        return h.amax(dim=(2, 3))[:, None, :].expand(B, L, d)
