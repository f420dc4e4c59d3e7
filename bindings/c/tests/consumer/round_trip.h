/* The engine-level round trip both consumers make (consumer.c through find_package,
 * msvc/consumer_msvc.c through idelink.lib): a connection without the token is refused with
 * 401; a misuse is a status and a message, not a crash; the same per-frame snapshot, filled in
 * C structs, reports its changes once. Needs no C runtime (the MSVC consumer has none). */
#ifndef IDELINK_TEST_ROUND_TRIP_H
#define IDELINK_TEST_ROUND_TRIP_H

#include <idelink.h>

typedef struct RoundTrip {
    int started, refused, misuse, snapshots;
} RoundTrip;

static size_t round_trip_length(const char *s) {
    size_t n = 0;
    while (s[n]) ++n;
    return n;
}

static int round_trip_starts_with(const uint8_t *data, size_t len, const char *prefix) {
    size_t n = round_trip_length(prefix);
    if (len < n) return 0;
    for (size_t i = 0; i < n; ++i)
        if (data[i] != (uint8_t)prefix[i]) return 0;
    return 1;
}

/* The round trip with a document at `path` in the workspace folder `folder`. */
static RoundTrip round_trip(const char *folder, const char *path, const char *language) {
    RoundTrip r = {0, 0, 0, 0};
    IdelinkEngine *engine = 0;
    uint64_t conn = 0;
    const char request[] = "GET / HTTP/1.1\r\nHost: 127.0.0.1:40000\r\n\r\n";
    r.started = idelink_engine_new("{\"port\":40000}", "00112233445566778899aabbccddeeff", &engine) == IDELINK_OK &&
                idelink_engine_handle_accept(engine, 0, &conn) == IDELINK_OK &&
                idelink_engine_handle_bytes(engine, 0, conn, (const uint8_t *)request,
                                     round_trip_length(request)) == IDELINK_OK;
    if (!r.started) {
        idelink_engine_free(engine);
        return r;
    }
    const uint8_t *data = 0;
    size_t len = 0;
    r.refused = idelink_engine_outbound(engine, conn, &data, &len) == IDELINK_OK &&
                round_trip_starts_with(data, len, "HTTP/1.1 401");
    r.misuse = idelink_engine_handle_sent(engine, 99, 1) == IDELINK_ERROR_MISUSE &&
               round_trip_length(idelink_last_error_message()) > 0;
    IdelinkDocument doc = {path, language, false, false};
    IdelinkActiveDocument active = {path, 0, {{3, 0}, {3, 0}}};
    const char *folders[] = {folder};
    IdelinkSnapshot snapshot = {&doc, 1, &active, 0, 0, folders, 1};
    IdelinkSnapshotChanges first, second;
    r.snapshots = idelink_engine_handle_snapshot(engine, 0, &snapshot, &first) == IDELINK_OK &&
                  idelink_engine_handle_snapshot(engine, 16, &snapshot, &second) == IDELINK_OK &&
                  first.documents && first.active && first.workspace_folders &&
                  !second.documents && !second.active && !second.workspace_folders;
    idelink_engine_free(engine);
    return r;
}

static int round_trip_passed(RoundTrip r) {
    return r.started && r.refused && r.misuse && r.snapshots;
}

#endif
