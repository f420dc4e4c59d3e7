"""Runs the Windows test binaries of some packages under Wine and accounts for every test.

Called by scripts/wine-test (which prepares Wine) as
    python3 scripts/wine_test.py WINE -p PKG [-p PKG ...] [-- TEST_ARGS]

Every test the Linux build of a package has is accounted for on Windows, one of:
- passed or failed under Wine;
- skipped under Wine: it printed `wine-skip: NAME: REASON` (a check Wine cannot support,
  such as reading a file ACL back) and is not counted as passed;
- not built for Windows (`#[cfg(unix)]`): listed with its reason in scripts/wine/unix-only.tsv.
A test missing on Windows without a reason there, or a stale line there, fails the run.
"""

import json
import os
import subprocess
import sys

TARGET = "x86_64-pc-windows-gnu"
HERE = os.path.dirname(os.path.abspath(__file__))
UNIX_ONLY = os.path.join(HERE, "wine", "unix-only.tsv")
# One test binary may take this long under Wine before it is stopped and counted as broken.
BINARY_TIMEOUT_S = 600


def test_binaries(packages, target, binaries=None):
    """(key, package dir, executable) of each test binary cargo builds; the executables of
    plain binaries go into `binaries` ({name: path}) when given."""
    command = ["cargo", "test", "--no-run", "--message-format=json-render-diagnostics"]
    if target:
        command += ["--target", target]
    for package in packages:
        command += ["-p", package]
    out = subprocess.run(command, check=True, stdout=subprocess.PIPE, text=True).stdout
    found = []
    for line in out.splitlines():
        msg = json.loads(line)
        if msg.get("reason") != "compiler-artifact" or not msg.get("executable"):
            continue
        if not msg["profile"]["test"]:
            if binaries is not None and "bin" in msg["target"]["kind"]:
                binaries[msg["target"]["name"]] = msg["executable"]
            continue
        directory = os.path.dirname(msg["manifest_path"])
        package = os.path.relpath(directory, os.path.dirname(HERE))
        key = f"{package}:{msg['target']['kind'][0]}:{msg['target']['name']}"
        found.append((key, directory, msg["executable"]))
    return found


def linux_tests(packages):
    """{binary key: set of test names} of the Linux build."""
    tests = {}
    for key, _, exe in test_binaries(packages, None):
        listing = subprocess.run([exe, "--list", "--format", "terse"], check=True,
                                 stdout=subprocess.PIPE, text=True).stdout
        tests[key] = {line[: -len(": test")] for line in listing.splitlines()
                      if line.endswith(": test")}
    return tests


def unix_only_reasons():
    """{(binary key, test name or '*'): reason} from scripts/wine/unix-only.tsv."""
    reasons = {}
    with open(UNIX_ONLY, encoding="utf-8") as f:
        for number, line in enumerate(f, 1):
            if not line.strip() or line.startswith("#"):
                continue
            parts = line.rstrip("\n").split("\t")
            if len(parts) != 3:
                sys.exit(f"{UNIX_ONLY}:{number}: expected BINARY<TAB>TEST<TAB>REASON")
            reasons[(parts[0], parts[1])] = parts[2]
    return reasons


def run_under_wine(wine, directory, exe, args):
    """(output, exit status) of one test binary run under Wine from its package folder."""
    try:
        done = subprocess.run([wine, exe, "--show-output", *args], cwd=directory,
                              stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                              errors="replace", timeout=BINARY_TIMEOUT_S)
        return done.stdout, done.returncode
    except subprocess.TimeoutExpired as e:
        out = e.stdout.decode(errors="replace") if isinstance(e.stdout, bytes) else e.stdout
        return (out or "") + f"\nwine-test: stopped after {BINARY_TIMEOUT_S} s\n", None


def parse_run(output):
    """({test: 'ok'|'FAILED'|'ignored'}, {test: skip reason}) from libtest's output."""
    results, skips = {}, {}
    for line in output.splitlines():
        if line.startswith("test ") and " ... " in line:
            name, verdict = line[5:].rsplit(" ... ", 1)
            results[name] = verdict.strip()
        elif line.startswith("wine-skip: "):
            name, _, reason = line[len("wine-skip: "):].partition(": ")
            skips[name] = reason
    return results, skips


def run_linux_client(wine, exe):
    """(passed, failed, broken) of apps/idelink/tests/wine_serve.rs: a Linux client against the
    Windows idelink.exe under Wine."""
    print("== linux client -> wine idelink.exe serve --stdio (apps/idelink:test:wine_serve)",
          flush=True)
    env = dict(os.environ, IDELINK_WINE=wine, IDELINK_WINE_EXE=exe)
    done = subprocess.run(["cargo", "test", "-p", "idelink", "--features", "wine-tests",
                           "--test", "wine_serve"], env=env, stdout=subprocess.PIPE,
                          stderr=subprocess.STDOUT, text=True, errors="replace")
    sys.stdout.write(done.stdout)
    results, _ = parse_run(done.stdout)
    if not results:
        print("wine-test: the Linux client test ended without a result")
        return 0, 0, 1
    ok = sum(1 for verdict in results.values() if verdict == "ok")
    return ok, sum(1 for verdict in results.values() if verdict == "FAILED"), 0


def skip_reason(test, skips):
    """The reason `test` (a full path, `module::name`) gave for skipping, if it printed one."""
    for name, reason in skips.items():
        if test == name or test.endswith("::" + name):
            return reason
    return None


def main():
    wine, args = sys.argv[1], sys.argv[2:]
    packages, test_args = [], []
    while args:
        if args[0] == "-p" and len(args) > 1:
            packages.append(args[1])
            args = args[2:]
        elif args[0] == "--":
            test_args = args[1:]
            break
        else:
            sys.exit(f"wine-test: unknown argument {args[0]!r} (usage: -p PACKAGE ... [-- TEST_ARGS])")
    if not packages:
        sys.exit("wine-test: name at least one package with -p")

    exes = {}
    windows = test_binaries(packages, TARGET, exes)
    on_linux = linux_tests(packages)
    reasons = unix_only_reasons()
    used_reasons = set()
    passed = failed = broken = 0
    skipped = []

    for key, directory, exe in windows:
        print(f"== wine: {key} ({os.path.basename(exe)})", flush=True)
        output, status = run_under_wine(wine, directory, exe, test_args)
        sys.stdout.write(output)
        results, skips = parse_run(output)
        if status is None or not any(l.startswith("test result: ") for l in output.splitlines()):
            print(f"wine-test: {key} ended without a test result (status {status})")
            broken += 1
        for name, verdict in sorted(results.items()):
            if verdict == "FAILED":
                failed += 1
            elif skip_reason(name, skips) is not None:
                skipped.append(f"{key}::{name}: skipped under Wine: {skip_reason(name, skips)}")
            elif verdict == "ok":
                passed += 1
        for name in sorted(on_linux.get(key, set()) - set(results)):
            reason = reasons.get((key, name)) or reasons.get((key, "*"))
            used_reasons.add((key, name) if (key, name) in reasons else (key, "*"))
            if reason is None and not test_args:
                print(f"wine-test: {key}::{name} runs on Linux but is not built for Windows, "
                      f"and {os.path.relpath(UNIX_ONLY)} gives no reason")
                broken += 1
            elif reason is not None:
                skipped.append(f"{key}::{name}: not built for Windows: {reason}")

    if "idelink" in packages and not test_args:
        p, f, b = run_linux_client(wine, exes["idelink"])
        passed, failed, broken = passed + p, failed + f, broken + b

    keys = {key for key, _, _ in windows}
    for entry in sorted(set(reasons) - used_reasons):
        if entry[0] in keys and not test_args:
            print(f"wine-test: stale line in {os.path.relpath(UNIX_ONLY)}: {entry[0]} {entry[1]}")
            broken += 1

    print("\nskipped on Windows:" if skipped else "")
    for line in skipped:
        print(f"  {line}")
    print(f"wine: {passed} passed, {failed} failed, {len(skipped)} skipped"
          + (f", {broken} binaries broken or unaccounted" if broken else ""))
    sys.exit(0 if failed == 0 and broken == 0 else 1)


if __name__ == "__main__":
    main()
