#!/usr/bin/env python3
"""List a WebAssembly module's imports; fail when any comes from a denied module.

A sans-IO engine built for wasm32-unknown-unknown must import nothing from `env`: such an
import means platform code (libc, a clock, a C dependency) leaked into it (quinn's CI check).
"""
import argparse
import sys


def uleb(data, pos):
    result = shift = 0
    while True:
        byte = data[pos]
        pos += 1
        result |= (byte & 0x7F) << shift
        shift += 7
        if byte < 0x80:
            return result, pos


def name(data, pos):
    length, pos = uleb(data, pos)
    return data[pos:pos + length].decode("utf-8"), pos + length


def imports(data):
    if data[:4] != b"\0asm":
        raise ValueError("not a WebAssembly module")
    pos = 8
    while pos < len(data):
        section, pos = data[pos], pos + 1
        size, pos = uleb(data, pos)
        end = pos + size
        if section == 2:  # import section
            count, pos = uleb(data, pos)
            for _ in range(count):
                module, pos = name(data, pos)
                field, pos = name(data, pos)
                kind, pos = data[pos], pos + 1
                yield module, field
                if kind == 0:  # function: type index
                    _, pos = uleb(data, pos)
                elif kind == 1:  # table: reftype + limits
                    pos += 1
                    flags, pos = uleb(data, pos)
                    _, pos = uleb(data, pos)
                    if flags & 1:
                        _, pos = uleb(data, pos)
                elif kind == 2:  # memory: limits
                    flags, pos = uleb(data, pos)
                    _, pos = uleb(data, pos)
                    if flags & 1:
                        _, pos = uleb(data, pos)
                elif kind == 3:  # global: valtype + mutability
                    pos += 2
                else:
                    raise ValueError(f"unknown import kind {kind}")
        pos = end


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("module")
    parser.add_argument("--deny-module", action="append", default=[])
    args = parser.parse_args()
    with open(args.module, "rb") as f:
        found = list(imports(f.read()))
    denied = [(m, f) for m, f in found if m in args.deny_module]
    print(f"{args.module}: {len(found)} imports")
    for module, field in found:
        print(f"  {module}.{field}")
    if denied:
        print(f"error: imports from denied modules {args.deny_module}: {denied}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
