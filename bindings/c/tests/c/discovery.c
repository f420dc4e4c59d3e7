/* The claude CLI's discovery rules through the C API (idelink_discover, idelink_folder_contains),
 * from plain C: the same answers as core's own tests (core/src/discovery), with the NFC the
 * binding adds. Exits 1 naming the first check that failed. */
#include "idelink.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int failures = 0;

#define CHECK(cond)                                                              \
  do {                                                                           \
    if (!(cond)) {                                                               \
      fprintf(stderr, "discovery.c:%d: check failed: %s\n", __LINE__, #cond);    \
      failures++;                                                                \
    }                                                                            \
  } while (0)

#define OK(call)                                                                 \
  do {                                                                           \
    IdelinkStatus status_ = (call);                                              \
    if (status_ != IDELINK_OK) {                                                 \
      fprintf(stderr, "discovery.c:%d: %s returned %d: %s\n", __LINE__, #call,   \
              (int)status_, idelink_last_error_message());                       \
      exit(1);                                                                   \
    }                                                                            \
  } while (0)

/* "café" composed (U+00E9) and decomposed (e + U+0301). */
#define COMPOSED "/tmp/caf\xc3\xa9"
#define DECOMPOSED "/tmp/cafe\xcc\x81"

static bool contains(const char *folder, const char *cwd, uint32_t style) {
  bool result = false;
  OK(idelink_folder_contains(folder, cwd, style, &result));
  return result;
}

/* Checks that the verdict for `start` is `expected`, byte for byte. */
static void verdict(const char *start, const char *expected) {
  char *json = NULL;
  OK(idelink_discover(start, &json));
  if (strcmp(json, expected) != 0) {
    fprintf(stderr, "discovery.c: for %s\n  got      %s\n  expected %s\n", start, json, expected);
    failures++;
  }
  idelink_string_free(json);
}

int main(void) {
  CHECK(contains("/a/b", "/a/b/c", IDELINK_PATH_STYLE_POSIX));
  CHECK(!contains("/a/b", "/a/bc", IDELINK_PATH_STYLE_POSIX));
  CHECK(!contains("", "/a", IDELINK_PATH_STYLE_POSIX));
  CHECK(contains(COMPOSED, DECOMPOSED "/src", IDELINK_PATH_STYLE_POSIX));
  CHECK(contains("C:/w", "C:\\w\\src", IDELINK_PATH_STYLE_WINDOWS));
  CHECK(!contains("C:/w", "C:\\w\\src", IDELINK_PATH_STYLE_POSIX));
  bool result = false;
  CHECK(idelink_folder_contains("/a", "/a", 7, &result) == IDELINK_ERROR_INVALID_ARGUMENT);
  CHECK(strstr(idelink_last_error_message(), "IdelinkPathStyle") != NULL);

  verdict("{\"cwd\":\"/p/src\",\"ideFlag\":true,\"env\":{\"HOME\":\"/h\"},"
          "\"locks\":[{\"port\":4242,\"workspaceFolders\":[\"/p\"]},"
          "{\"port\":4243,\"workspaceFolders\":[\"/q\"]}]}",
          "{\"autoConnect\":{\"state\":\"on\",\"reason\":\"ideFlag\"},"
          "\"choice\":{\"kind\":\"one\",\"port\":4242},\"ideTerminal\":null,"
          "\"ancestorRule\":false,\"connectsTo\":4242}");
  /* The lock's folder and the cwd spell "café" differently: NFC makes them one. */
  verdict("{\"cwd\":\"" COMPOSED "/x\",\"ideFlag\":true,"
          "\"locks\":[{\"port\":3,\"workspaceFolders\":[\"" DECOMPOSED "\"]}]}",
          "{\"autoConnect\":{\"state\":\"on\",\"reason\":\"ideFlag\"},"
          "\"choice\":{\"kind\":\"one\",\"port\":3},\"ideTerminal\":null,"
          "\"ancestorRule\":false,\"connectsTo\":3}");
  verdict("{\"cwd\":\"/p\",\"ideFlag\":true,"
          "\"locks\":[{\"port\":1,\"workspaceFolders\":[\"/p\"]},"
          "{\"port\":2,\"workspaceFolders\":[\"/p\"]}]}",
          "{\"autoConnect\":{\"state\":\"on\",\"reason\":\"ideFlag\"},"
          "\"choice\":{\"kind\":\"ambiguous\",\"ports\":[1,2]},\"ideTerminal\":null,"
          "\"ancestorRule\":false,\"connectsTo\":null}");
  verdict("{\"cwd\":\"C:\\\\w\\\\src\",\"pathStyle\":\"windows\",\"ideFlag\":true,"
          "\"env\":{\"TERMINAL_EMULATOR\":\"JetBrains-JediTerm\",\"CLAUDE_CODE_AUTO_CONNECT_IDE\":\"no\"},"
          "\"locks\":[{\"port\":7,\"workspaceFolders\":[\"C:/w\"]}]}",
          "{\"autoConnect\":{\"state\":\"disabled\"},"
          "\"choice\":{\"kind\":\"one\",\"port\":7},\"ideTerminal\":\"jetbrains\","
          "\"ancestorRule\":false,\"connectsTo\":null}");

  char *json = NULL;
  CHECK(idelink_discover("{\"cwd\":\"/p\",\"locks\":[],\"lockz\":1}", &json) ==
        IDELINK_ERROR_INVALID_ARGUMENT);
  CHECK(strstr(idelink_last_error_message(), "unknown field `lockz`") != NULL);
  CHECK(json == NULL);

  if (failures != 0) {
    fprintf(stderr, "discovery.c: %d checks failed\n", failures);
    return 1;
  }
  printf("discovery.c: every check passed\n");
  return 0;
}
