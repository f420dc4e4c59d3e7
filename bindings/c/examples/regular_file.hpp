// regular_file.hpp: reading a file whose path came from the model, without stalling the frame.
//
// A path in a tool call is untrusted text: it may name a FIFO (opening it for reading blocks
// until a writer comes, and a read then waits for data), /dev/zero (never ends), a terminal or
// a folder. A frame loop that blocks there stops polling idelink for good: no keepalives, no
// answers, no shutdown. So the file is opened without blocking (POSIX open with O_NONBLOCK: a
// FIFO opened O_RDONLY | O_NONBLOCK returns at once; Windows never blocks in the open), its
// type is checked on the opened handle with fstat (no race between the check and the use),
// and at most kMaxFileBytes are read.
#pragma once

#include <cerrno>
#include <cstdint>
#include <cstring>
#include <string>
#include <utility>

#ifdef _WIN32
#include <fcntl.h>
#include <filesystem>
#include <io.h>
#include <sys/stat.h>
#else
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#endif

namespace regular_file {

// The largest file read: the engine's default WebSocket message cap (64 MiB), so any proposal
// claude can send can be compared with the file it replaces, and no file (or device) can grow
// the editor's memory past it.
constexpr std::uint64_t kMaxFileBytes = 64ull * 1024 * 1024;

// What a read found.
enum class Status { Read, Missing, Refused };

struct Result {
    Status status = Status::Missing;
    std::string text;  // the file's bytes when Read
    std::string error; // why, when Refused
};

namespace detail {

#ifdef _WIN32
using Stat = struct _stat64;
inline int open_nonblocking(const std::string& path) {
    // UTF-8 path to the wide API; a pipe or device opens without waiting.
    return _wopen(std::filesystem::u8path(path).c_str(), _O_RDONLY | _O_BINARY);
}
inline int stat_of(int fd, Stat& st) { return _fstat64(fd, &st); }
inline bool is_regular(const Stat& st) { return (st.st_mode & _S_IFMT) == _S_IFREG; }
inline long read_some(int fd, char* buf, unsigned size) { return _read(fd, buf, size); }
inline void close_fd(int fd) { _close(fd); }
#else
using Stat = struct stat;
inline int open_nonblocking(const std::string& path) {
    return ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
}
inline int stat_of(int fd, Stat& st) { return ::fstat(fd, &st); }
inline bool is_regular(const Stat& st) { return S_ISREG(st.st_mode); }
inline long read_some(int fd, char* buf, unsigned size) { return static_cast<long>(::read(fd, buf, size)); }
inline void close_fd(int fd) { ::close(fd); }
#endif

inline Result refused(std::string why) { return Result{Status::Refused, {}, std::move(why)}; }

} // namespace detail

// The bytes of the regular file at `path`, Missing when there is none, or Refused with the
// reason (not a regular file, larger than the cap, an error).
inline Result read(const std::string& path) {
    const int fd = detail::open_nonblocking(path);
    if (fd < 0) {
        if (errno == ENOENT) return Result{};
        return detail::refused(std::string("cannot open it: ") + std::strerror(errno));
    }
    struct Closer {
        int fd;
        ~Closer() { detail::close_fd(fd); }
    } closer{fd};
    detail::Stat st{};
    if (detail::stat_of(fd, st) != 0) return detail::refused(std::string("cannot stat it: ") + std::strerror(errno));
    if (!detail::is_regular(st)) return detail::refused("it is not a regular file");
    if (static_cast<std::uint64_t>(st.st_size) > kMaxFileBytes)
        return detail::refused("it is larger than " + std::to_string(kMaxFileBytes) + " bytes");
    Result result{Status::Read, {}, {}};
    char buf[64 * 1024];
    while (true) {
        const long n = detail::read_some(fd, buf, sizeof buf);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) return detail::refused(std::string("cannot read it: ") + std::strerror(errno));
        if (n == 0) return result;
        result.text.append(buf, static_cast<std::size_t>(n));
        // The file grew since fstat: the cap still holds.
        if (result.text.size() > kMaxFileBytes)
            return detail::refused("it is larger than " + std::to_string(kMaxFileBytes) + " bytes");
    }
}

} // namespace regular_file
