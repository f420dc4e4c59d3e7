/* A consumer built the way an MSVC project builds one: compiled by clang-cl for
 * x86_64-pc-windows-msvc and linked by lld-link against idelink.lib (the MSVC import library),
 * then run with idelink.dll beside it (tests/msvc/consumer_msvc.cmake). Neither MSVC's C runtime
 * nor the Windows SDK is available off Windows, so it uses neither: its entry point is its own,
 * and the three kernel32 functions it calls come from an import library made there. What it
 * proves is the ABI: idelink.h compiled by an MSVC-mode compiler, every call through
 * idelink.lib's __imp_ slots into the MinGW-built DLL (the x64 calling convention is one), the
 * structs laid out alike (the round trip of round_trip.h, with a Windows path). Exit 0 on
 * success, and one line on stdout. */
#include "../consumer/round_trip.h"

typedef void *HANDLE;
__declspec(dllimport) HANDLE __stdcall GetStdHandle(unsigned long which);
__declspec(dllimport) int __stdcall WriteFile(HANDLE file, const void *data, unsigned long len,
                                              unsigned long *written, void *overlapped);
__declspec(dllimport) __declspec(noreturn) void __stdcall ExitProcess(unsigned int code);
#define STD_OUTPUT_HANDLE ((unsigned long)-11)

static void say(const char *line) {
    unsigned long written = 0;
    HANDLE out = GetStdHandle(STD_OUTPUT_HANDLE);
    WriteFile(out, line, (unsigned long)round_trip_length(line), &written, 0);
    WriteFile(out, "\n", 1, &written, 0);
}

void consumer_main(void) {
    RoundTrip r = round_trip("C:\\game", "C:\\game\\main.lua", "lua");
    if (!r.started) say(idelink_last_error_message());
    int ok = round_trip_passed(r);
    say(ok ? "consumer_msvc: refused=1 misuse=1 snapshots=1"
           : "consumer_msvc: FAILED (started, refused, misuse or snapshots)");
    ExitProcess(ok ? 0 : 1);
}
