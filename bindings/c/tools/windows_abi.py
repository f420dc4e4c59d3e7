#!/usr/bin/env python3
"""The Windows ABI of libidelink, from idelink.h (the contract) to what the files export.

    windows_abi.py def HEADER OUT.def
        Writes the module-definition file of idelink.dll: every function idelink.h declares.
        llvm-dlltool (or lld-link /def) makes MSVC's import library idelink.lib from it.
    windows_abi.py check HEADER DLL IMPORT_LIB...
        Fails unless every function of HEADER is exported by DLL (llvm-readobj --coff-exports)
        and imported by each IMPORT_LIB (llvm-nm: `__imp_<name>` and the thunk `<name>`), each
        naming idelink.dll, and DLL exports nothing the header does not declare.

Prints what it found; exits 1 naming each missing or extra symbol.
"""
import re
import shutil
import subprocess
import sys

DLL_NAME = "idelink.dll"


def tool(*names):
    for name in names:
        found = shutil.which(name)
        if found:
            return found
    sys.exit(f"windows_abi: none of {', '.join(names)} on PATH (Debian: llvm)")


def header_functions(header):
    """The functions HEADER declares: `idelink_<name>(` outside comments and macros."""
    text = open(header, encoding="utf-8").read()
    text = re.sub(r"/\*.*?\*/", " ", text, flags=re.S)
    text = re.sub(r"//[^\n]*", " ", text)
    text = re.sub(r"^\s*#[^\n]*", " ", text, flags=re.M)
    names = sorted(set(re.findall(r"\b(idelink_[A-Za-z0-9_]+)\s*\(", text)))
    if not names:
        sys.exit(f"windows_abi: {header} declares no idelink_ function")
    return names


def write_def(header, out):
    names = header_functions(header)
    with open(out, "w", encoding="ascii", newline="\n") as f:
        f.write(f"; The exports of {DLL_NAME}: the functions idelink.h declares"
                " (bindings/c/tools/windows_abi.py).\n")
        f.write(f"LIBRARY {DLL_NAME}\nEXPORTS\n")
        for name in names:
            f.write(f"    {name}\n")
    print(f"{out}: {len(names)} exports")


def run(*args):
    return subprocess.run(args, check=True, capture_output=True, text=True).stdout


def dll_exports(dll):
    out = run(tool("llvm-readobj", "llvm-readobj-14"), "--coff-exports", dll)
    return set(re.findall(r"^\s*Name: (\S+)$", out, flags=re.M))


def import_lib_symbols(lib):
    out = run(tool("llvm-nm", "llvm-nm-14"), "--defined-only", lib)
    symbols = set()
    for line in out.splitlines():
        parts = line.split()
        if len(parts) >= 2 and parts[-2] in ("T", "I", "D", "R"):
            symbols.add(parts[-1])
    return symbols


def import_lib_dll_names(lib):
    """The DLL names an import library's members refer to (short or GNU long form)."""
    data = open(lib, "rb").read()
    return {m.decode().lower() for m in re.findall(rb"([A-Za-z0-9_.-]+\.dll)\0", data)}


def check(header, dll, libs):
    names = header_functions(header)
    problems = []
    exports = dll_exports(dll)
    missing = [n for n in names if n not in exports]
    if missing:
        problems.append(f"{dll} does not export: {', '.join(missing)}")
    extra = sorted(exports - set(names))
    if extra:
        problems.append(f"{dll} exports what idelink.h does not declare: {', '.join(extra)}")
    for lib in libs:
        symbols = import_lib_symbols(lib)
        missing = [n for n in names if f"__imp_{n}" not in symbols or n not in symbols]
        if missing:
            problems.append(f"{lib} lacks the import (__imp_<name> and <name>) of: {', '.join(missing)}")
        dlls = import_lib_dll_names(lib)
        if DLL_NAME not in dlls:
            problems.append(f"{lib} names no {DLL_NAME} (it names: {', '.join(sorted(dlls)) or 'nothing'})")
    if problems:
        sys.exit("windows_abi: " + "\nwindows_abi: ".join(problems))
    print(f"windows_abi: {len(names)} functions of idelink.h exported by {dll} and imported by "
          f"{', '.join(libs)}")


def main():
    if len(sys.argv) == 4 and sys.argv[1] == "def":
        write_def(sys.argv[2], sys.argv[3])
    elif len(sys.argv) >= 5 and sys.argv[1] == "check":
        check(sys.argv[2], sys.argv[3], sys.argv[4:])
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main()
