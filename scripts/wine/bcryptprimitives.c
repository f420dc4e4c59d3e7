/* Wine 8 has no bcryptprimitives.dll, whose ProcessPrng Rust's std imports on Windows for its
 * random seeds: every Rust .exe then fails to start with c0000135. This stand-in exports
 * ProcessPrng and fills the buffer from the system RNG through bcrypt.dll, which Wine has.
 * Used only by scripts/wine-test to run Windows test binaries under Wine; never shipped. */
#include <windows.h>
#include <bcrypt.h>

BOOL WINAPI ProcessPrng(PBYTE data, SIZE_T len) {
    while (len > 0) {
        ULONG chunk = len > 0x40000000 ? 0x40000000 : (ULONG)len;
        if (BCryptGenRandom(NULL, data, chunk, BCRYPT_USE_SYSTEM_PREFERRED_RNG) != 0) {
            return FALSE;
        }
        data += chunk;
        len -= chunk;
    }
    return TRUE;
}
