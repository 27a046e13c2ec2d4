#!/usr/bin/env python3
"""Writes a TORCH_TRACE log whose payloads are all distinct, for the GUI's search benchmark.

usage: bench-gui-unique-payloads.py SRC.log OUT.log --payload-mb 220

The index stores each payload once per (MD5, size), so a log made by repeating one trace
(scale-trace) holds only one copy's worth of distinct payload text however large it is. To
measure full-text search over N MB of payloads, every repetition here changes every payload a
little (a JSON object gets a "bench_copy" member, any other text a last "# bench copy N" line),
recomputes its has_payload MD5 and shifts frame_id like scale-trace does, until the distinct
payload bytes written reach the size asked for.
"""
import argparse
import hashlib
import json
import re
import sys

PREFIX = re.compile(r'^([VIWEC]\d{4} \d{2}:\d{2}:\d{2}\.\d{6} +\d+ [^\]]+\] )(.*)$')


def parse_records(lines):
    """Groups the log into (prefix, envelope dict or None, raw line, payload lines)."""
    records = []
    i = 0
    while i < len(lines):
        line = lines[i]
        i += 1
        m = PREFIX.match(line)
        envelope = None
        if m and m.group(2).startswith("{"):
            try:
                envelope = json.loads(m.group(2))
            except ValueError:
                envelope = None
        payload = []
        if isinstance(envelope, dict) and "has_payload" in envelope:
            while i < len(lines) and lines[i].startswith("\t"):
                payload.append(lines[i][1:])
                i += 1
        records.append((m.group(1) if m else None, envelope, line, payload))
    return records


def changed_payload(text, copy):
    stripped = text.lstrip()
    if stripped.startswith("{"):
        try:
            obj = json.loads(text)
        except ValueError:
            obj = None
        if isinstance(obj, dict):
            obj["bench_copy"] = copy
            return json.dumps(obj)
    return text + "\n# bench copy %d" % copy


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("src")
    ap.add_argument("out")
    ap.add_argument("--payload-mb", type=float, default=220.0)
    a = ap.parse_args()
    with open(a.src, encoding="utf-8", errors="surrogateescape") as f:
        records = parse_records(f.read().split("\n"))
    step = 1 + max((e.get("frame_id") or 0) for _, e, _, _ in records
                   if isinstance(e, dict) and isinstance(e.get("frame_id"), int))
    target = int(a.payload_mb * 1024 * 1024)
    payload_bytes = 0
    log_bytes = 0
    copy = 0
    with open(a.out, "w", encoding="utf-8", errors="surrogateescape") as out:
        while payload_bytes < target:
            for prefix, envelope, line, payload in records:
                if not isinstance(envelope, dict):
                    if line or log_bytes:
                        out.write(line + "\n")
                        log_bytes += len(line) + 1
                    continue
                env = dict(envelope)
                if isinstance(env.get("frame_id"), int):
                    env["frame_id"] += copy * step
                text = None
                if payload:
                    text = "\n".join(payload)
                    if copy > 0:
                        text = changed_payload(text, copy)
                    data = text.encode("utf-8", errors="surrogateescape")
                    env["has_payload"] = hashlib.md5(data).hexdigest()
                    payload_bytes += len(data)
                row = prefix + json.dumps(env) + "\n"
                if text is not None:
                    row += "".join("\t" + p + "\n" for p in text.split("\n"))
                out.write(row)
                log_bytes += len(row)
            copy += 1
    print("%s: %.1f MiB log, %.1f MiB of distinct payloads, %d copies"
          % (a.out, log_bytes / 1048576, payload_bytes / 1048576, copy), file=sys.stderr)


if __name__ == "__main__":
    main()
