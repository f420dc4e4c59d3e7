/* Links libidelink through find_package(idelink) and makes one engine-level round trip in
 * plain C: a connection without the token is refused with 401; a per-frame snapshot filled in
 * C structs reports its changes once. Exit 0 on success. */
#include <idelink.h>
#include <stdio.h>
#include <string.h>

int main(void) {
    IdelinkEngine *engine = NULL;
    uint64_t conn = 0;
    const char request[] = "GET / HTTP/1.1\r\nHost: 127.0.0.1:40000\r\n\r\n";
    if (idelink_engine_new("{\"port\":40000}", "00112233445566778899aabbccddeeff", &engine) != IDELINK_OK ||
        idelink_engine_accept(engine, 0, &conn) != IDELINK_OK ||
        idelink_engine_bytes(engine, 0, conn, (const uint8_t *)request, strlen(request)) != IDELINK_OK) {
        fprintf(stderr, "consumer: %s\n", idelink_last_error_message());
        idelink_engine_free(engine);
        return 1;
    }
    const uint8_t *data = NULL;
    size_t len = 0;
    int refused = idelink_engine_outbound(engine, conn, &data, &len) == IDELINK_OK && len > 12 &&
                  memcmp(data, "HTTP/1.1 401", 12) == 0;
    /* A misuse is a status and a message, not a crash. */
    int misuse = idelink_engine_sent(engine, 99, 1) == IDELINK_ERROR_MISUSE &&
                 strlen(idelink_last_error_message()) > 0;
    /* The same snapshot twice: the first opens the document, the second changes nothing. */
    IdelinkDocument doc = {"/p/main.c", "c", false, false};
    IdelinkActiveDocument active = {"/p/main.c", NULL, {{3, 0}, {3, 0}}};
    const char *folders[] = {"/p"};
    IdelinkSnapshot snapshot = {&doc, 1, &active, NULL, 0, folders, 1};
    IdelinkSnapshotChanges first, second;
    int snapshots = idelink_engine_snapshot(engine, 0, &snapshot, &first) == IDELINK_OK &&
                    idelink_engine_snapshot(engine, 16, &snapshot, &second) == IDELINK_OK &&
                    first.documents && first.active && first.workspace_folders &&
                    !second.documents && !second.active && !second.workspace_folders;
    idelink_engine_free(engine);
    printf("consumer: refused=%d misuse=%d snapshots=%d\n", refused, misuse, snapshots);
    return refused && misuse && snapshots ? 0 : 1;
}
