#!/usr/bin/env python3
"""Writes the committed inputs of issue 25 into fuzz/corpus/: Avro messages fed as Kafka feeds
them (one message, many blocks) and the two findings as regressions, scaled to the Avro
targets' 128 KiB message limit (fuzz/targets/datastream_avro_target.cc):

  datastream_avro/regression-null-items-{payload,skipped,sort-keys}
      a 64 KiB event whose array of nulls every block claims again (read, skip(), leaves)
  datastream_avro/regression-deflate-blocks
      200 deflate blocks of 120 KiB of valid events each (each under the old per-block bound):
      23 MiB once inflated, ~110 KB on the wire
  datastream_avro/seed-blocks-{null,deflate,snappy}
      valid containers of 6 blocks, under the limit (the codecs' multi-block path)
  confluent_avro/regression-debezium-null-items
      selector byte 0xff (a Debezium value of the target's hostile schema, id 4) + a body whose
      after.nulls is such an array

The bytes are the same as tests/schemas/avro_builder.h writes. Run from anywhere; it
overwrites only these files."""
import os
import struct
import zlib

root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
corpus = os.path.join(root, "fuzz", "corpus")
SYNC = b"\x5a" * 16


def long(v):
    z = (v << 1) ^ (v >> 63)
    z &= (1 << 64) - 1
    out = bytearray()
    while z >= 0x80:
        out.append((z & 0x7F) | 0x80)
        z >>= 7
    out.append(z)
    return bytes(out)


def text(b):
    b = b.encode() if isinstance(b, str) else b
    return long(len(b)) + b


def container(schema, blocks, codec="null"):
    out = b"Obj\x01" + long(2) + text("avro.schema") + text(schema)
    out += text("avro.codec") + text(codec) + long(0) + SYNC
    for count, data in blocks:
        out += long(count) + text(data) + SYNC
    return out


def zero_byte_items(size):
    tail = long(0)
    while len(tail) < size:
        tail = long(len(tail)) + tail
    return tail


def event_schema(at=None, extra=""):
    s = '{"type":"record","name":"e","fields":[{"name":"read_method","type":"string"},'
    if at == "top_level":
        s += '{"name":"padding","type":' + extra + "},"
    s += '{"name":"source_metadata","type":{"type":"record","name":"m","fields":['
    s += '{"name":"database","type":"string"},{"name":"table","type":"string"},'
    s += '{"name":"primary_keys","type":{"type":"array","items":"string"}}'
    if at == "sort_keys":
        s += ',{"name":"sort_keys","type":' + extra + "}"
    s += "]}},"
    s += '{"name":"payload","type":{"type":"record","name":"p","fields":['
    s += '{"name":"id","type":"long"},{"name":"name","type":"string"}'
    if at == "payload":
        s += ',{"name":"extra","type":' + extra + "}"
    return s + "]}}]}"


def event_record(i, name, at=None, extra=b""):
    r = text("mysql-backfill-fulldump")
    if at == "top_level":
        r += extra
    r += text("db") + text("t") + long(1) + text("id") + long(0)
    if at == "sort_keys":
        r += extra
    r += long(i) + text(name)
    if at == "payload":
        r += extra
    return r


def records(first, count, name_bytes):
    out = b""
    for i in range(first, first + count):
        name = ("row %d " % i + "of a compressible event " * 8)[:name_bytes]
        out += event_record(i, name)
    return out


def raw_deflate(data):
    c = zlib.compressobj(9, zlib.DEFLATED, -15)
    return c.compress(data) + c.flush()


def snappy_literals(data):
    """Snappy's format with literal elements only (valid, uncompressed), then Avro's CRC."""
    out = bytearray()
    n = len(data)
    while True:  # the uncompressed length, a little-endian varint
        if n < 0x80:
            out.append(n)
            break
        out.append((n & 0x7F) | 0x80)
        n >>= 7
    for at in range(0, len(data), 60):
        chunk = data[at:at + 60]
        out.append((len(chunk) - 1) << 2)
        out += chunk
    return bytes(out) + struct.pack(">I", zlib.crc32(data))


def write(target, name, data):
    d = os.path.join(corpus, target)
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, name), "wb") as f:
        f.write(data)
    print("%s/%s: %d bytes" % (target, name, len(data)))


nulls = '{"type":"array","items":"null"}'
items = zero_byte_items(64 << 10)
for at, name in (("payload", "payload"), ("top_level", "skipped"), ("sort_keys", "sort-keys")):
    write("datastream_avro", "regression-null-items-" + name,
          container(event_schema(at, nulls), [(1, event_record(1, "a", at, items))]))

one = event_record(1, "x" * 100)
block = one * ((120 << 10) // len(one))
write("datastream_avro", "regression-deflate-blocks",
      container(event_schema(), [(len(block) // len(one), raw_deflate(block))] * 200, "deflate"))

for codec, pack in (("null", lambda b: b), ("deflate", raw_deflate), ("snappy", snappy_literals)):
    blocks = [(10, pack(records(10 * k + 1, 10, 60))) for k in range(6)]
    write("datastream_avro", "seed-blocks-" + codec, container(event_schema(), blocks, codec))

body = long(0) + long(1) + long(1) + items + long(0)  # before null, after {1, nulls, []}
body += text("postgresql") + long(1700000000000) + text("db") + text("public") + text("t")
body += long(1) + long(1000) + text("c")
write("confluent_avro", "regression-debezium-null-items", b"\xff" + body)
