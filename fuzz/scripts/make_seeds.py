#!/usr/bin/env python3
"""Writes starting corpora for the fuzz targets into a folder (default build-fuzz/seeds):
the JSON raw-string literals of tests/schemas/*_test.cc, the JSON examples of the format
seeds (../shared/seeds, when present), and a few multi-message inputs built from them
(metadata then DML; Kafka key then value). Fuzzing grows these; `-merge=1` distils the
result into fuzz/corpus/<target>/, which is what is committed."""
import hashlib, json, os, re, sys

root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(root, "build-fuzz", "seeds")
seeds_dir = sys.argv[2] if len(sys.argv) > 2 else os.path.join(root, "..", "shared", "seeds")
SEP = "\n%%\n"

def literals(path):
    text = open(path, encoding="utf-8").read()
    found = re.findall(r'R"(\w*)\((.*?)\)\1"', text, re.S)
    return [body for _, body in found if "{" in body]

def balanced_objects(text):
    objs, i = [], 0
    while True:
        i = text.find("{", i)
        if i < 0:
            return objs
        depth, j, in_str, esc = 0, i, False, False
        while j < len(text):
            c = text[j]
            if in_str:
                if esc: esc = False
                elif c == "\\": esc = True
                elif c == '"': in_str = False
            elif c == '"': in_str = True
            elif c == "{": depth += 1
            elif c == "}":
                depth -= 1
                if depth == 0:
                    break
            j += 1
        body = text[i:j + 1]
        if len(body) > 40 and '"' in body:
            objs.append(body)
            i = j + 1
        else:
            i += 1

def write(target, data):
    d = os.path.join(out, target)
    os.makedirs(d, exist_ok=True)
    b = data.encode("utf-8") if isinstance(data, str) else data
    if len(b) > 4096:
        return
    open(os.path.join(d, hashlib.sha1(b).hexdigest()), "wb").write(b)

def seed_file(prefix):
    if not os.path.isdir(seeds_dir):
        return []
    for name in sorted(os.listdir(seeds_dir)):
        if name.startswith(prefix):
            return balanced_objects(open(os.path.join(seeds_dir, name), encoding="utf-8").read())
    return []

tests = os.path.join(root, "tests", "schemas")
per_target = {
    "datastream": literals(os.path.join(tests, "datastream_decoder_test.cc")) + seed_file("000") + seed_file("002"),
    "goldengate": literals(os.path.join(tests, "goldengate_decoder_test.cc")) + literals(os.path.join(tests, "goldengate_metadata_test.cc")) + seed_file("003"),
    "debezium": literals(os.path.join(tests, "debezium_decoder_test.cc")) + literals(os.path.join(tests, "debezium_logical_types_test.cc")),
    "dsql": literals(os.path.join(tests, "dsql_decoder_test.cc")) + seed_file("004"),
    "kcat_line": literals(os.path.join(tests, "kcat_line_reader_test.cc")),
}
per_target["format_auto"] = (literals(os.path.join(tests, "format_detector_test.cc"))
                             + per_target["datastream"][:8] + per_target["goldengate"][:8]
                             + per_target["debezium"][:8] + per_target["dsql"][:8])

for target, items in per_target.items():
    for s in items:
        write(target, s)

# Multi-message inputs: metadata teaches the key, then DML uses it.
gg = [s for s in per_target["goldengate"] if "op_type" in s or "$schema" in s]
meta = [s for s in gg if "OBJECT_METADATA" in s]
dml = [s for s in gg if "OBJECT_METADATA" not in s]
for m in meta:
    write("goldengate", m + SEP + SEP.join(dml[:4]))
    write("format_auto", m + SEP + SEP.join(dml[:2]))
write("goldengate", SEP.join(dml[:6]))

# Debezium: Kafka key then value.
keys = ['{"id":1}', '{"schema":{"type":"struct","fields":[{"type":"int32","optional":false,"field":"id"}],"optional":false,"name":"pg.public.items.Key"},"payload":{"id":1}}', '', '{"a":1,"b":"x"}', '42']
values = per_target["debezium"]
for i, v in enumerate(values):
    write("debezium", keys[i % len(keys)] + SEP + v)
write("debezium", SEP.join([keys[0], values[0], "", "", keys[1], values[-1]]))
write("debezium", '{"id":1}' + SEP + '{"before":null,"after":{"id":1,"v":"a"},"source":{"version":"2.5.0.Final","connector":"postgresql","name":"pg","ts_ms":1705318200123,"snapshot":"false","db":"shop","sequence":"[\\"24023119\\",\\"24023128\\"]","schema":"public","table":"items","txId":555,"lsn":24023128,"xmin":null},"op":"c","ts_ms":1705318200456}')
write("debezium", '{"a":1}' + SEP + '{"before":null,"after":{"a":1,"b":"x"},"source":{"version":"2.5.0.Final","connector":"mysql","name":"m","ts_ms":1705318200123,"snapshot":"false","db":"inventory","table":"configured","server_id":223344,"file":"mysql-bin.000003","pos":484,"row":0},"op":"u","ts_ms":1705318200456}')

# DSQL: full records with the configured tables.
def dsql(op, before, after, table="t"):
    return ('{"type":"full","op":"%s","before":%s,"after":%s,"source":{"version":"1.0","ts_ms":1,'
            '"ts_ns":1705318200000000000,"txId":"tx1","schema":"public","table":"%s","db":"postgres",'
            '"cluster":"c1"},"ts_ns":1705318200000000001}' % (op, before, after, table))
write("dsql", dsql("c", "null", '{"id":1,"v":"a"}'))
write("dsql", dsql("u", "null", '{"id":"7","v":1}') + SEP + dsql("d", '{"id":7}', "null"))
write("dsql", dsql("c", "null", '{"order_id":1,"item_id":2,"q":3}', "order_items") + SEP + dsql("d", '{"item_id":2,"order_id":1}', "null", "order_items"))

# kcat lines carrying messages of each family.
for target in ("datastream", "goldengate", "debezium", "dsql"):
    for s in per_target[target][:3]:
        line = json.dumps({"topic": "t", "partition": 0, "offset": 1, "tstype": "create",
                           "ts": 1767225600123, "broker": 1, "headers": ["h", "v"],
                           "key": "k", "payload": s}, ensure_ascii=False)
        write("kcat_line", line)

for target in per_target:
    print(target, len(os.listdir(os.path.join(out, target))))
