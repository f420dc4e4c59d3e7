/* read_dacl PATH...: for each PATH, the DACL Windows reports, in SDDL, and this process's user:
 *     user S-1-5-21-...
 *     wine 8.0            (only under Wine, which keeps no security descriptor for files: it
 *                          derives one from the Unix mode, never protected, with SYSTEM in it)
 *     PATH D:P(A;;FA;;;S-1-5-21-...)
 * The Windows side of frame_editor_wine's check that the lock and its folder are owner-only
 * (tests/drivers/frame_editor_wine.rs). Exit 1 when a DACL cannot be read. */
#include <windows.h>
#include <aclapi.h>
#include <sddl.h>
#include <stdio.h>
#include <string.h>

static int print_user(void) {
    HANDLE token = NULL;
    BYTE buffer[256];
    DWORD size = 0;
    LPSTR sid = NULL;
    if (!OpenProcessToken(GetCurrentProcess(), TOKEN_QUERY, &token) ||
        !GetTokenInformation(token, TokenUser, buffer, sizeof buffer, &size) ||
        !ConvertSidToStringSidA(((TOKEN_USER *)buffer)->User.Sid, &sid)) {
        fprintf(stderr, "read_dacl: this process's user: error %lu\n", GetLastError());
        return 1;
    }
    printf("user %s\n", sid);
    LocalFree(sid);
    CloseHandle(token);
    return 0;
}

static int print_dacl(const char *path) {
    PSECURITY_DESCRIPTOR sd = NULL;
    LPSTR sddl = NULL;
    DWORD status = GetNamedSecurityInfoA(path, SE_FILE_OBJECT, DACL_SECURITY_INFORMATION, NULL,
                                         NULL, NULL, NULL, &sd);
    if (status != ERROR_SUCCESS ||
        !ConvertSecurityDescriptorToStringSecurityDescriptorA(sd, SDDL_REVISION_1,
                                                              DACL_SECURITY_INFORMATION, &sddl, NULL)) {
        fprintf(stderr, "read_dacl: %s: error %lu\n", path, status ? status : GetLastError());
        return 1;
    }
    printf("%s %s\n", path, sddl);
    LocalFree(sddl);
    LocalFree(sd);
    return 0;
}

static void print_wine(void) {
    typedef const char *(*version_fn)(void);
    HMODULE ntdll = GetModuleHandleA("ntdll.dll");
    FARPROC found = ntdll ? GetProcAddress(ntdll, "wine_get_version") : NULL;
    version_fn version;
    if (!found) return;
    memcpy(&version, &found, sizeof version);
    printf("wine %s\n", version());
}

int main(int argc, char **argv) {
    int failed = print_user();
    print_wine();
    for (int i = 1; i < argc; ++i) failed |= print_dacl(argv[i]);
    return failed;
}
