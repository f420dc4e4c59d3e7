/* A consumer built the way an MSVC project builds one: compiled by clang-cl for
 * x86_64-pc-windows-msvc and linked by lld-link against idelink.lib (the MSVC import library),
 * then run with idelink.dll beside it (tests/msvc/consumer_msvc.cmake). Neither MSVC's C runtime
 * nor the Windows SDK is available off Windows, so it uses neither: its entry point is its own,
 * and the three kernel32 functions it calls come from an import library made here. What it
 * proves is the ABI: idelink.h compiled by an MSVC-mode compiler, every call through
 * idelink.lib's __imp_ slots into the MinGW-built DLL (the x64 calling convention is one), the
 * structs laid out alike. Exit 0 on success, and one line on stdout. */
#include <idelink.h>

typedef void *HANDLE;
__declspec(dllimport) HANDLE __stdcall GetStdHandle(unsigned long which);
__declspec(dllimport) int __stdcall WriteFile(HANDLE file, const void *data, unsigned long len,
                                              unsigned long *written, void *overlapped);
__declspec(dllimport) __declspec(noreturn) void __stdcall ExitProcess(unsigned int code);
#define STD_OUTPUT_HANDLE ((unsigned long)-11)

static size_t length(const char *s) {
    size_t n = 0;
    while (s[n]) ++n;
    return n;
}

static int starts_with(const uint8_t *data, size_t len, const char *prefix) {
    size_t n = length(prefix);
    if (len < n) return 0;
    for (size_t i = 0; i < n; ++i)
        if (data[i] != (uint8_t)prefix[i]) return 0;
    return 1;
}

static void say(const char *line) {
    unsigned long written = 0;
    HANDLE out = GetStdHandle(STD_OUTPUT_HANDLE);
    WriteFile(out, line, (unsigned long)length(line), &written, 0);
    WriteFile(out, "\n", 1, &written, 0);
}

void consumer_main(void) {
    IdelinkEngine *engine = 0;
    uint64_t conn = 0;
    const char request[] = "GET / HTTP/1.1\r\nHost: 127.0.0.1:40000\r\n\r\n";
    if (idelink_engine_new("{\"port\":40000}", "00112233445566778899aabbccddeeff", &engine) != IDELINK_OK ||
        idelink_engine_accept(engine, 0, &conn) != IDELINK_OK ||
        idelink_engine_bytes(engine, 0, conn, (const uint8_t *)request, length(request)) != IDELINK_OK) {
        say(idelink_last_error_message());
        ExitProcess(1);
    }
    const uint8_t *data = 0;
    size_t len = 0;
    int refused = idelink_engine_outbound(engine, conn, &data, &len) == IDELINK_OK &&
                  starts_with(data, len, "HTTP/1.1 401");
    int misuse = idelink_engine_sent(engine, 99, 1) == IDELINK_ERROR_MISUSE &&
                 length(idelink_last_error_message()) > 0;
    /* Structs across the ABI: a Windows path in, changes out (docs/protocol.md §6). */
    IdelinkDocument doc = {"C:\\game\\main.lua", "lua", false, false};
    IdelinkActiveDocument active = {"C:\\game\\main.lua", 0, {{3, 0}, {3, 0}}};
    const char *folders[] = {"C:\\game"};
    IdelinkSnapshot snapshot = {&doc, 1, &active, 0, 0, folders, 1};
    IdelinkSnapshotChanges first, second;
    int snapshots = idelink_engine_snapshot(engine, 0, &snapshot, &first) == IDELINK_OK &&
                    idelink_engine_snapshot(engine, 16, &snapshot, &second) == IDELINK_OK &&
                    first.documents && first.active && first.workspace_folders &&
                    !second.documents && !second.active && !second.workspace_folders;
    idelink_engine_free(engine);
    int ok = refused && misuse && snapshots;
    say(ok ? "consumer_msvc: refused=1 misuse=1 snapshots=1"
           : "consumer_msvc: FAILED (refused, misuse or snapshots)");
    ExitProcess(ok ? 0 : 1);
}
