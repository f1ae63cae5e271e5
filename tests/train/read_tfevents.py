"""Reads a run's TensorBoard event file back and checks it against its metrics.tsv.

usage: read_tfevents.py RUN_DIR

The file is read as TFRecord (uint64 length, masked CRC-32C of the length, data, masked CRC-32C
of the data; the CRC-32C computed here bit by bit) and each record decoded as an Event with
python3-protobuf, against the messages of tensorflow/core/util/event.proto and summary.proto
written out below as a descriptor (no TensorFlow, no network). Checks: the first Event's
file_version is "brain.Event:2"; every other Event holds one scalar or one image; the scalars'
(tag, step, value) set is exactly the one metrics.tsv gives: train/loss and train/lr of each
train row, dev/loss and dev/<column> of every score column of each dev row (values as float32;
nan left out). Each image is a PNG whose height, width and colorspace are those its own IHDR
chunk gives (read here from the bytes), at most one per tag and step, and the last image of
each tag is the run's file of that name (plots/attention: RUN_DIR/plots/attention.png,
plots/confusion: RUN_DIR/plots/confusion.png) byte for byte; printed: each tag's number of
images and the step of its last. A resumed
run's files (several, read in name order as TensorBoard does) each begin with file_version, the
later ones then with a SessionLog START, after which points at or after its step are dropped
(TensorBoard's purge of orphaned data) before the file's own are read."""
import glob
import math
import struct
import sys

from google.protobuf import descriptor_pb2, descriptor_pool, message_factory

F = descriptor_pb2.FieldDescriptorProto


def messages():
    fd = descriptor_pb2.FileDescriptorProto(name="qkv_test_event.proto", package="qkvtest", syntax="proto3")

    def msg(name, fields):
        m = fd.message_type.add(name=name)
        for fname, number, ftype, label, type_name in fields:
            f = m.field.add(name=fname, number=number, type=ftype, label=label)
            if type_name:
                f.type_name = type_name

    opt, rep = F.LABEL_OPTIONAL, F.LABEL_REPEATED
    msg("Image", [("height", 1, F.TYPE_INT32, opt, None), ("width", 2, F.TYPE_INT32, opt, None),
                  ("colorspace", 3, F.TYPE_INT32, opt, None), ("encoded_image_string", 4, F.TYPE_BYTES, opt, None)])
    msg("Value", [("tag", 1, F.TYPE_STRING, opt, None), ("simple_value", 2, F.TYPE_FLOAT, opt, None),
                  ("image", 4, F.TYPE_MESSAGE, opt, ".qkvtest.Image")])
    msg("Summary", [("value", 1, F.TYPE_MESSAGE, rep, ".qkvtest.Value")])
    msg("SessionLog", [("status", 1, F.TYPE_INT32, opt, None)])  # an enum on the wire: START = 1
    msg("Event", [("wall_time", 1, F.TYPE_DOUBLE, opt, None), ("step", 2, F.TYPE_INT64, opt, None),
                  ("file_version", 3, F.TYPE_STRING, opt, None), ("summary", 5, F.TYPE_MESSAGE, opt, ".qkvtest.Summary"),
                  ("session_log", 6, F.TYPE_MESSAGE, opt, ".qkvtest.SessionLog")])
    pool = descriptor_pool.DescriptorPool()
    pool.Add(fd)
    desc = pool.FindMessageTypeByName("qkvtest.Event")
    if hasattr(message_factory, "GetMessageClass"):
        return message_factory.GetMessageClass(desc)
    return message_factory.MessageFactory(pool).GetPrototype(desc)


def crc32c(data):
    crc = 0xFFFFFFFF
    for b in data:
        crc ^= b
        for _ in range(8):
            crc = (crc >> 1) ^ 0x82F63B78 if crc & 1 else crc >> 1
    return crc ^ 0xFFFFFFFF


def masked(data):
    c = crc32c(data)
    return (((c >> 15) | (c << 17)) + 0xA282EAD8) & 0xFFFFFFFF


def records(path):
    data = open(path, "rb").read()
    at = 0
    while at < len(data):
        assert at + 12 <= len(data), f"{path}: a truncated record header at byte {at}"
        (n,) = struct.unpack_from("<Q", data, at)
        (len_crc,) = struct.unpack_from("<I", data, at + 8)
        assert len_crc == masked(data[at:at + 8]), f"{path}: bad length CRC at byte {at}"
        body = data[at + 12:at + 12 + n]
        (data_crc,) = struct.unpack_from("<I", data, at + 12 + n)
        assert data_crc == masked(body), f"{path}: bad data CRC at byte {at}"
        yield body
        at += 16 + n


def check_image(img, where):
    """The Image's fields against its PNG's own header: signature, IHDR size and colour type
    (0 grey, 2 RGB, 3 palette, 4 grey + alpha, 6 RGBA; a tRNS chunk adds an alpha channel)."""
    png = img.encoded_image_string
    assert png[:8] == b"\x89PNG\r\n\x1a\n" and png[12:16] == b"IHDR", f"{where}: not a PNG"
    width, height = struct.unpack(">II", png[16:24])
    trns = b"tRNS" in png[:png.find(b"IDAT")]
    colorspace = {0: 2 if trns else 1, 2: 4 if trns else 3, 3: 4 if trns else 3, 4: 2, 6: 4}[png[25]]
    assert (img.height, img.width, img.colorspace) == (height, width, colorspace), \
        f"{where}: height {img.height}, width {img.width}, colorspace {img.colorspace}; the PNG: {height}, {width}, {colorspace}"


def expected(run):
    rows = [line.rstrip("\n").split("\t") for line in open(f"{run}/metrics.tsv")]
    head, rows = rows[0], rows[1:]
    col = {name: i for i, name in enumerate(head)}
    scores = [name for i, name in enumerate(head) if i == 4 or i >= 8]
    want = {}
    for r in rows:
        step, split = int(r[col["step"]]), r[col["split"]]
        names = ["loss", "lr"] if split == "train" else ["loss"] + scores
        for name in names:
            v = float(r[col[name]])
            if not math.isnan(v):
                want[(f"{split}/{name}", step)] = v
    return want, scores


def main(run):
    files = sorted(glob.glob(f"{run}/events.out.tfevents.*"))
    assert files, f"{run}: no event file"
    Event = messages()
    got, n_events, n_starts, images = {}, 0, 0, {}
    for k, path in enumerate(files):
        events = [Event.FromString(body) for body in records(path)]
        n_events += len(events)
        mine, shown = set(), set()
        assert events and events[0].file_version == "brain.Event:2", f"{path}: the first Event is not brain.Event:2"
        for e in events[1:]:
            assert e.wall_time > 1.6e9, f"wall_time {e.wall_time} is not seconds since 1970"
            if e.HasField("session_log"):
                assert k > 0 and e.session_log.status == 1, f"{path}: a SessionLog other than a resumed run's START"
                got = {key: v for key, v in got.items() if key[1] < e.step}
                images = {tag: [x for x in shots if x[0] < e.step] for tag, shots in images.items()}
                n_starts += 1
                continue
            assert len(e.summary.value) == 1, f"an Event of {len(e.summary.value)} values"
            v = e.summary.value[0]
            if v.HasField("image"):
                assert (v.tag, e.step) not in shown, f"{path}: image {v.tag} twice at step {e.step}"
                check_image(v.image, f"{path}: {v.tag} at step {e.step}")
                shown.add((v.tag, e.step))
                images[v.tag] = images.get(v.tag, []) + [(e.step, v.image.encoded_image_string)]
                continue
            # within a file a point once; a resumed run may log its checkpoint's step again
            assert (v.tag, e.step) not in mine, f"{path}: {v.tag} twice at step {e.step}"
            mine.add((v.tag, e.step))
            got[(v.tag, e.step)] = v.simple_value
    assert n_starts == len(files) - 1, f"{len(files)} files, {n_starts} SessionLog START"
    want, scores = expected(run)
    assert set(got) == set(want), f"tags and steps differ: only in events {sorted(set(got) - set(want))[:5]}, " \
                                  f"only in metrics.tsv {sorted(set(want) - set(got))[:5]}"
    for key, v in want.items():
        f32 = struct.unpack("<f", struct.pack("<f", v))[0]
        assert abs(got[key] - f32) <= 1e-6 * max(1.0, abs(f32)), f"{key}: {got[key]} in the events, {v} in metrics.tsv"
    images = {tag: shots for tag, shots in images.items() if shots}
    for tag, shots in images.items():
        with open(f"{run}/{tag}.png", "rb") as f:
            assert shots[-1][1] == f.read(), f"the last {tag} image (step {shots[-1][0]}) is not {run}/{tag}.png"
    print(f"{len(files)} file(s), {n_events} events; dev scores: {', '.join(scores)}")
    for tag, shots in sorted(images.items()):
        print(f"images: {tag} at {len(shots)} steps, the last at step {shots[-1][0]}")


if __name__ == "__main__":
    main(sys.argv[1])
