"""An HDF5 file of qkv's store (a checkpoint, an export, a frame corpus) as the list of items
the fuzz targets of these files read (tests/data/fuzz_store.h says the format): every dataset,
then the root attributes format_version and qkv_version.

usage: /usr/bin/python3 tests/data/fuzz_items.py FILE.h5 OUT.items
"""
import struct
import sys

import h5py
import numpy as np

KINDS = {np.dtype("<f4"): 0, np.dtype("<f2"): 1, np.dtype("<f8"): 2, np.dtype("<i8"): 3, np.dtype("<u8"): 4,
         np.dtype("<i4"): 5, np.dtype("u1"): 6, np.dtype("i1"): 7}


def item(kind, path, shape=(), width=0, flags=0, data=b""):
    name = path.encode()
    return (bytes([kind, len(name)]) + name + bytes([len(shape)]) + b"".join(struct.pack("<I", d) for d in shape)
            + struct.pack("<IBI", width, flags, len(data)) + data)


def dataset(path, ds):
    tid = ds.id.get_type()
    if isinstance(tid, h5py.h5t.TypeStringID):
        flags = {h5py.h5t.STR_NULLTERM: 0, h5py.h5t.STR_NULLPAD: 1, h5py.h5t.STR_SPACEPAD: 2}[tid.get_strpad()]
        flags |= 4 if tid.get_cset() == h5py.h5t.CSET_ASCII else 0
        if tid.is_variable_str():
            strings = [s if isinstance(s, bytes) else s.encode() for s in np.atleast_1d(ds[()]).ravel()]
            return item(9, path, ds.shape, 0, flags, b"\0".join(strings))
        return item(8, path, ds.shape, tid.get_size(), flags, np.atleast_1d(ds[()]).tobytes())
    dtype = ds.dtype.newbyteorder("<") if ds.dtype.byteorder == ">" else ds.dtype
    flags = 8 if ds.dtype.byteorder == ">" else 0
    values = ds[()].astype(ds.dtype)
    return item(KINDS[dtype], path, ds.shape, 0, flags, np.ascontiguousarray(values).tobytes())


def main(src, out):
    items = []
    with h5py.File(src, "r") as f:
        f.visititems(lambda name, obj: items.append(dataset("/" + name, obj))
                     if isinstance(obj, h5py.Dataset) else None)
        version = f.attrs.get("format_version")
        if version is not None:
            items.append(item(11, "", data=struct.pack("<q", int(version))))
        qkv_version = f.attrs.get("qkv_version")
        if qkv_version is not None:
            items.append(item(12, "", data=qkv_version if isinstance(qkv_version, bytes) else qkv_version.encode()))
    with open(out, "wb") as f:
        f.write(b"".join(items))


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
