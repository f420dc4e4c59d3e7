#!/usr/bin/env python3
"""Checks a built executable or library without running it (scripts/release).

    binary_check.py macho ARCH FILE   a Mach-O executable for ARCH (x86_64 | arm64) that loads
                                      only system libraries (/usr/lib/, /System/Library/)
    binary_check.py elf ARCH FILE     a static ELF executable for ARCH (x86_64 | aarch64): no
                                      interpreter, no DT_NEEDED library
    binary_check.py pe ARCH FILE      a PE32+ executable for ARCH (x86_64) that imports only
                                      DLLs every Windows has (no libgcc/libwinpthread/… beside it)
    binary_check.py pe-dll ARCH FILE  the same for a DLL (libidelink's idelink.dll)
    binary_check.py elf-so ARCH FILE  an ELF shared library for ARCH that needs only the C
                                      library's own (GLIBC_LIBRARIES: libidelink.so), and no
                                      glibc symbol version newer than GLIBC_FLOOR

Prints what it found; exits 1 with the reason when the file is not what it should be.
"""
import re
import struct
import sys

MACHO_CPU = {"x86_64": 0x01000007, "arm64": 0x0100000C}
MH_MAGIC_64 = 0xFEEDFACF
MH_EXECUTE = 2
# Load commands naming a dynamic library (mach-o/loader.h).
DYLIB_COMMANDS = {
    0xC: "LC_LOAD_DYLIB",
    0x80000018: "LC_LOAD_WEAK_DYLIB",
    0x8000001F: "LC_REEXPORT_DYLIB",
    0x20: "LC_LAZY_LOAD_DYLIB",
    0x80000023: "LC_LOAD_UPWARD_DYLIB",
}
SYSTEM_PREFIXES = ("/usr/lib/", "/System/Library/")

ELF_MACHINE = {"x86_64": 62, "aarch64": 183}
PT_INTERP = 3
PT_DYNAMIC = 2
DT_NEEDED = 1
DT_STRTAB = 5
ET_DYN = 3
# The libraries of glibc itself (and libgcc_s, which every glibc system has): what a shared
# library built for x86_64-unknown-linux-gnu may need.
GLIBC_LIBRARIES = {
    "libc.so.6", "libm.so.6", "libdl.so.2", "libpthread.so.0", "librt.so.1", "libutil.so.1",
    "libgcc_s.so.1", "ld-linux-x86-64.so.2", "ld-linux-aarch64.so.1",
}
# The newest glibc symbol version libidelink.so may require: the one scripts/release pins with
# Zig (x86_64-unknown-linux-gnu.2.17), the oldest glibc Rust supports (RHEL 7 and later).
GLIBC_FLOOR = (2, 17)


PE_MACHINE = {"x86_64": 0x8664}
PE32_PLUS = 0x20B
IMAGE_FILE_EXECUTABLE_IMAGE = 0x2
IMAGE_FILE_DLL = 0x2000
# Data directories (PE format, "Optional Header Data Directories"): imports, delay-load imports.
PE_IMPORT_DIRECTORIES = {1: 20, 13: 32}  # index: size of one descriptor
# DLLs of Windows itself (lower case); api-ms-win-* API sets are Windows' too.
WINDOWS_DLLS = {
    "advapi32.dll", "bcrypt.dll", "bcryptprimitives.dll", "crypt32.dll", "gdi32.dll",
    "iphlpapi.dll", "kernel32.dll", "msvcrt.dll", "ntdll.dll", "ole32.dll", "oleaut32.dll",
    "secur32.dll", "shell32.dll", "ucrtbase.dll", "user32.dll", "userenv.dll", "ws2_32.dll",
}


def fail(why):
    sys.exit(f"binary_check: {why}")


def check_macho(arch, data):
    if len(data) < 32:
        fail("too short for a Mach-O header")
    magic, cputype, _sub, filetype, ncmds, _size, _flags = struct.unpack_from("<IiiIIII", data, 0)
    if magic != MH_MAGIC_64:
        fail(f"not a 64-bit little-endian Mach-O file (magic {magic:#x})")
    if cputype & 0xFFFFFFFF != MACHO_CPU[arch]:
        fail(f"CPU type {cputype:#x}, expected {arch} ({MACHO_CPU[arch]:#x})")
    if filetype != MH_EXECUTE:
        fail(f"file type {filetype}, expected MH_EXECUTE")
    offset, libraries = 32, []
    for _ in range(ncmds):
        cmd, cmdsize = struct.unpack_from("<II", data, offset)
        if cmdsize < 8 or offset + cmdsize > len(data):
            fail(f"load command at {offset} has a bad size {cmdsize}")
        if cmd in DYLIB_COMMANDS:
            (name_offset,) = struct.unpack_from("<I", data, offset + 8)
            raw = data[offset + name_offset : offset + cmdsize]
            libraries.append(raw.split(b"\0", 1)[0].decode())
        offset += cmdsize
    foreign = [lib for lib in libraries if not lib.startswith(SYSTEM_PREFIXES)]
    if foreign:
        fail(f"loads non-system libraries: {', '.join(foreign)}")
    print(f"Mach-O {arch} executable; libraries: {', '.join(libraries) or 'none'}")


def check_elf(arch, data):
    if data[:4] != b"\x7fELF" or data[4] != 2 or data[5] != 1:
        fail("not a 64-bit little-endian ELF file")
    (machine,) = struct.unpack_from("<H", data, 18)
    if machine != ELF_MACHINE[arch]:
        fail(f"ELF machine {machine}, expected {arch} ({ELF_MACHINE[arch]})")
    phoff, = struct.unpack_from("<Q", data, 32)
    phentsize, phnum = struct.unpack_from("<HH", data, 54)
    segments = [struct.unpack_from("<IIQQQQQQ", data, phoff + i * phentsize) for i in range(phnum)]
    if any(seg[0] == PT_INTERP for seg in segments):
        fail("has an interpreter (dynamically linked)")
    for seg in segments:
        if seg[0] != PT_DYNAMIC:
            continue
        _type, _flags, offset, _vaddr, _paddr, filesz, _memsz, _align = seg
        for at in range(offset, offset + filesz, 16):
            tag, _value = struct.unpack_from("<qQ", data, at)
            if tag == DT_NEEDED:
                fail("needs a shared library (DT_NEEDED)")
    print(f"static ELF {arch} executable")


def check_elf_so(arch, data):
    if data[:4] != b"\x7fELF" or data[4] != 2 or data[5] != 1:
        fail("not a 64-bit little-endian ELF file")
    e_type, machine = struct.unpack_from("<HH", data, 16)
    if machine != ELF_MACHINE[arch]:
        fail(f"ELF machine {machine}, expected {arch} ({ELF_MACHINE[arch]})")
    if e_type != ET_DYN:
        fail(f"ELF type {e_type}, expected a shared object (ET_DYN)")
    phoff, = struct.unpack_from("<Q", data, 32)
    phentsize, phnum = struct.unpack_from("<HH", data, 54)
    segments = [struct.unpack_from("<IIQQQQQQ", data, phoff + i * phentsize) for i in range(phnum)]

    def file_offset(vaddr):
        for seg in segments:
            if seg[0] == 1 and seg[3] <= vaddr < seg[3] + seg[5]:  # PT_LOAD
                return seg[2] + vaddr - seg[3]
        fail(f"address {vaddr:#x} lies in no loaded segment")

    entries = []
    for seg in segments:
        if seg[0] == PT_DYNAMIC:
            for at in range(seg[2], seg[2] + seg[5], 16):
                entries.append(struct.unpack_from("<qQ", data, at))
    strtab = next((file_offset(v) for tag, v in entries if tag == DT_STRTAB), None)
    if strtab is None:
        fail("no dynamic string table")
    needed = [data[strtab + v : data.index(b"\0", strtab + v)].decode() for tag, v in entries
              if tag == DT_NEEDED]
    foreign = sorted(set(needed) - GLIBC_LIBRARIES)
    if foreign:
        fail(f"needs libraries beyond glibc's (GLIBC_LIBRARIES): {', '.join(foreign)}")
    versions = {tuple(int(p) for p in m.split(b"."))
                for m in re.findall(rb"GLIBC_(\d+\.\d+(?:\.\d+)?)\0", data)}
    newest = max(versions, default=(0,))
    if newest > GLIBC_FLOOR:
        fail(f"requires glibc {'.'.join(map(str, newest))}, newer than the floor "
             f"{'.'.join(map(str, GLIBC_FLOOR))}")
    print(f"ELF {arch} shared library; needs: {', '.join(needed) or 'nothing'}; "
          f"glibc symbols up to {'.'.join(map(str, newest))}")


def check_pe_dll(arch, data):
    check_pe(arch, data, dll=True)


def check_pe(arch, data, dll=False):
    if data[:2] != b"MZ" or len(data) < 0x40:
        fail("not a PE file (no MZ header)")
    (pe,) = struct.unpack_from("<I", data, 0x3C)
    if data[pe : pe + 4] != b"PE\0\0":
        fail("not a PE file (no PE signature)")
    machine, nsections, _time, _symtab, _nsyms, opt_size, flags = struct.unpack_from(
        "<HHIIIHH", data, pe + 4)
    if machine != PE_MACHINE[arch]:
        fail(f"PE machine {machine:#x}, expected {arch} ({PE_MACHINE[arch]:#x})")
    if not flags & IMAGE_FILE_EXECUTABLE_IMAGE or bool(flags & IMAGE_FILE_DLL) != dll:
        fail(f"not {'a DLL' if dll else 'an executable'} image (characteristics {flags:#x})")
    opt = pe + 24
    (magic,) = struct.unpack_from("<H", data, opt)
    if magic != PE32_PLUS:
        fail(f"optional header magic {magic:#x}, expected PE32+ ({PE32_PLUS:#x})")
    (ndirs,) = struct.unpack_from("<I", data, opt + 108)
    sections = [struct.unpack_from("<8sIIII", data, opt + opt_size + 40 * i)
                for i in range(nsections)]

    def offset(rva):
        for _name, vsize, vaddr, raw_size, raw_ptr in sections:
            if vaddr <= rva < vaddr + max(vsize, raw_size):
                return raw_ptr + rva - vaddr
        fail(f"RVA {rva:#x} lies in no section")

    def c_string(at):
        return data[at : data.index(b"\0", at)].decode("ascii", "replace")

    dlls = []
    for index, size in PE_IMPORT_DIRECTORIES.items():
        if index >= ndirs:
            continue
        rva, _dir_size = struct.unpack_from("<II", data, opt + 112 + 8 * index)
        at = offset(rva) if rva else None
        while at is not None and any(data[at : at + size]):
            name_rva = struct.unpack_from("<I", data, at + (12 if index == 1 else 4))[0]
            dlls.append(c_string(offset(name_rva)))
            at += size
    foreign = sorted({d for d in dlls
                      if d.lower() not in WINDOWS_DLLS and not d.lower().startswith("api-ms-win-")})
    if foreign:
        fail(f"imports DLLs outside the Windows system DLLs it knows (WINDOWS_DLLS): {', '.join(foreign)}")
    print(f"PE32+ {arch} {'DLL' if dll else 'executable'}; DLLs: {', '.join(sorted(set(d.lower() for d in dlls)))}")


def main():
    if len(sys.argv) != 4 or sys.argv[1] not in ("macho", "elf", "pe", "pe-dll", "elf-so"):
        sys.exit(__doc__)
    kind, arch, path = sys.argv[1:]
    table = {"macho": MACHO_CPU, "elf": ELF_MACHINE, "elf-so": ELF_MACHINE, "pe": PE_MACHINE,
             "pe-dll": PE_MACHINE}[kind]
    if arch not in table:
        fail(f"unknown {kind} architecture {arch} (one of {', '.join(table)})")
    with open(path, "rb") as f:
        data = f.read()
    {"macho": check_macho, "elf": check_elf, "elf-so": check_elf_so, "pe": check_pe,
     "pe-dll": check_pe_dll}[kind](arch, data)


if __name__ == "__main__":
    main()
