"""Seeded subsets of the Fashion-MNIST training images for the image experiments (run.sh): a
validation set of N_VALID images, then nested training sets of the sizes asked for (the first n
of one seeded permutation of the other images), each written as an IDX image file with its
label file beside it (the names data/idx.h pairs: ...-images-idx3-ubyte.gz, ...-labels-idx1-ubyte.gz).

usage: subsets.py TRAIN_IMAGES OUT_DIR SEED N_VALID SIZE...   (SIZE 0: all the other images)
Standard library only."""
import gzip
import random
import struct
import sys


def read_idx(path):
    data = gzip.open(path).read() if path.endswith(".gz") else open(path, "rb").read()
    if data[:2] != b"\0\0" or data[2] != 8:
        raise SystemExit(f"{path}: not an IDX file of unsigned bytes")
    dims = struct.unpack(">" + "I" * data[3], data[4:4 + 4 * data[3]])
    return dims, data[4 + 4 * data[3]:]


def write_idx(path, dims, body):
    with gzip.open(path, "wb", compresslevel=6) as f:
        f.write(bytes([0, 0, 8, len(dims)]) + struct.pack(">" + "I" * len(dims), *dims) + body)


def main():
    images, out, seed, n_valid = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
    sizes = [int(s) for s in sys.argv[5:]]
    dims, pix = read_idx(images)
    ldims, lab = read_idx(images.replace("images-idx3", "labels-idx1"))
    n, per = dims[0], dims[1] * dims[2] * (dims[3] if len(dims) > 3 else 1)
    if ldims[0] != n:
        raise SystemExit(f"{images}: {n} images but {ldims[0]} labels")
    order = list(range(n))
    random.Random(seed).shuffle(order)
    valid, rest = sorted(order[:n_valid]), order[n_valid:]
    sets = [("valid", valid)] + [(f"train{s or len(rest)}", sorted(rest[:s or len(rest)])) for s in sizes]
    for name, idx in sets:
        if len(idx) > len(rest) and name != "valid":
            raise SystemExit(f"subsets.py: {name}: only {len(rest)} images besides the validation set")
        write_idx(f"{out}/{name}-images-idx3-ubyte.gz", (len(idx),) + tuple(dims[1:]),
                  b"".join(pix[i * per:(i + 1) * per] for i in idx))
        write_idx(f"{out}/{name}-labels-idx1-ubyte.gz", (len(idx),), bytes(lab[i] for i in idx))
        print(f"{out}/{name}-images-idx3-ubyte.gz: {len(idx)} images")


if __name__ == "__main__":
    main()
