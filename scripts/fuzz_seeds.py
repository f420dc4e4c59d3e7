#!/usr/bin/env python3
"""Seed the fuzz corpora from the transcript vectors in tests/vectors.

Writes fuzz/corpus/<target>/seed-<sha1> files (existing files are kept, so a grown corpus
survives):
- upgrade: every request head (`http`) a vector sends;
- rpc: every text frame a vector sends or expects;
- frames: `[0x01, 0x00]` + the client frames of every `bytes` step (the frames target's layout:
  binary accepted, no cuts);
- engine: the whole client byte stream of each vector (read by `arbitrary` as operations);
- link: `[0x00]` + a bridge's link stream carrying the start of each vector's client stream on
  one connection (hello, open, data within the target's 64-byte window, close).
"""
import hashlib
import json
import os
import pathlib
import sys

MASK = bytes([0x37, 0xFA, 0x21, 0x3D])


def frame_payload(frame):
    if "text" in frame:
        return 0x1, frame["text"].encode()
    if "binary" in frame:
        return 0x2, bytes.fromhex(frame["binary"])
    if "ping" in frame:
        return 0x9, frame["ping"].encode()
    if "pong" in frame:
        return 0xA, frame["pong"].encode()
    if "close" in frame:
        close = frame["close"]
        if not close:
            return 0x8, b""
        return 0x8, close[0].to_bytes(2, "big") + (close[1] if len(close) > 1 else "").encode()
    raise ValueError(f"unknown frame {frame}")


def client_frame(frame):
    opcode, payload = frame_payload(frame)
    opcode = frame.get("opcode", opcode)
    first = (0x80 if frame.get("fin", True) else 0) | opcode
    n = len(payload)
    if n < 126:
        head = bytes([first, 0x80 | n])
    elif n <= 0xFFFF:
        head = bytes([first, 0x80 | 126]) + n.to_bytes(2, "big")
    else:
        head = bytes([first, 0x80 | 127]) + n.to_bytes(8, "big")
    return head + MASK + bytes(b ^ MASK[i % 4] for i, b in enumerate(payload))


def link_frame(kind, conn, payload):
    return bytes([kind]) + conn.to_bytes(4, "big") + len(payload).to_bytes(4, "big") + payload


def link_stream(data):
    """A bridge's link stream (core/src/link/): hello (version 1, binary version, port 1), open
    connection 1, its data, close."""
    hello = b"\x00\x01" + b"\x01\x00\x04seed" + b"\x06\x00\x02\x00\x01"
    stream = link_frame(1, 0, hello) + link_frame(2, 1, b"")
    if data:
        stream += link_frame(3, 1, data)
    return stream + link_frame(4, 1, b"")


def main():
    root = pathlib.Path(__file__).resolve().parent.parent
    seeds = {"upgrade": set(), "rpc": set(), "frames": set(), "engine": set(), "link": set()}
    for path in sorted((root / "tests" / "vectors").glob("*.json")):
        vector = json.loads(path.read_text())
        stream = b""
        for step in vector["steps"]:
            if step.get("do") != "bytes":
                continue
            http = step.get("http", "").encode()
            frames = b"".join(client_frame(f) for f in step.get("frames", []))
            frames += bytes.fromhex(step.get("hex", ""))
            stream += http + frames
            if http:
                seeds["upgrade"].add(http)
            if frames:
                seeds["frames"].add(b"\x01\x00" + frames)
            for frame in step.get("frames", []):
                if "text" in frame:
                    seeds["rpc"].add(frame["text"].encode())
        for step in vector["steps"]:
            for expected in step.get("expect", []):
                for frame in expected.get("frames", []) if isinstance(expected, dict) else []:
                    if "text" in frame:
                        seeds["rpc"].add(frame["text"].encode())
        seeds["engine"].add(stream)
        seeds["link"].add(b"\x00" + link_stream(stream[:64]))
    for target, items in seeds.items():
        directory = root / "fuzz" / "corpus" / target
        directory.mkdir(parents=True, exist_ok=True)
        for item in items:
            name = "seed-" + hashlib.sha1(item).hexdigest()
            (directory / name).write_bytes(item)
        print(f"{target}: {len(items)} seeds")
    return 0


if __name__ == "__main__":
    sys.exit(main())
