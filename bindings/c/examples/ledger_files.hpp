// ledger_files.hpp: the file side of idelink's turn ledger for an editor whose documents hold no
// unsaved edits (docs/embedding.md, "The turn ledger"): a `ledgerRead` is answered with what
// the file holds on disk, in the ledger's content form, and a `ledgerWrite` (an undo) is a
// compare-and-write: the file is written (or deleted) only while it still holds what the ledger
// expects, so a change made since is never overwritten.
//
// Files are read by regular_file.hpp's rules (the path came from the model): a FIFO or a device
// is "unread", never waited on.
#pragma once

#include "mini_json.hpp"
#include "regular_file.hpp"

#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <system_error>

namespace ledger_files {

using mini_json::Value;

// Whether `bytes` is UTF-8 (RFC 3629: no overlongs, no surrogates, nothing past U+10FFFF).
inline bool is_utf8(const std::string& bytes) {
    std::size_t i = 0;
    while (i < bytes.size()) {
        const auto c = static_cast<unsigned char>(bytes[i]);
        std::size_t more = 0;
        std::uint32_t cp = 0;
        if (c < 0x80) { ++i; continue; }
        if (c >= 0xC2 && c <= 0xDF) { more = 1; cp = c & 0x1F; }
        else if (c >= 0xE0 && c <= 0xEF) { more = 2; cp = c & 0x0F; }
        else if (c >= 0xF0 && c <= 0xF4) { more = 3; cp = c & 0x07; }
        else return false;
        if (i + more >= bytes.size()) return false;
        for (std::size_t k = 1; k <= more; ++k) {
            const auto next = static_cast<unsigned char>(bytes[i + k]);
            if ((next & 0xC0) != 0x80) return false;
            cp = (cp << 6) | (next & 0x3F);
        }
        if ((more == 2 && cp < 0x800) || (more == 3 && (cp < 0x10000 || cp > 0x10FFFF)) ||
            (cp >= 0xD800 && cp <= 0xDFFF))
            return false;
        i += more + 1;
    }
    return true;
}

// A digest of `bytes` (64-bit FNV-1a, hex): the ledger only compares it, to tell versions apart.
inline std::string digest(const std::string& bytes) {
    std::uint64_t hash = 0xcbf29ce484222325ull;
    for (unsigned char c : bytes) hash = (hash ^ c) * 0x100000001b3ull;
    char out[17];
    std::snprintf(out, sizeof out, "%016llx", static_cast<unsigned long long>(hash));
    return out;
}

// What `path` holds: `{"kind":"text","text":…}`, `{"kind":"missing"}`, `{"kind":"binary",…}`
// (not UTF-8, or a NUL byte), `{"kind":"unread","reason":…}`.
inline Value content_of(const std::string& path) {
    regular_file::Result file = regular_file::read(path);
    Value content = Value::object();
    switch (file.status) {
    case regular_file::Status::Missing:
        content.set("kind", Value::string("missing"));
        break;
    case regular_file::Status::Refused:
        content.set("kind", Value::string("unread"));
        content.set("reason", Value::string(file.error));
        break;
    case regular_file::Status::Read:
        if (file.text.find('\0') == std::string::npos && is_utf8(file.text)) {
            content.set("kind", Value::string("text"));
            content.set("text", Value::string(std::move(file.text)));
        } else {
            content.set("kind", Value::string("binary"));
            content.set("bytes", Value::number(static_cast<std::uint64_t>(file.text.size())));
            content.set("digest", Value::string(digest(file.text)));
        }
        break;
    }
    return content;
}

// What a compare-and-write did: what the file holds afterwards, and why nothing was written
// (empty when it was).
struct Written {
    Value holds;
    std::string conflict;
};

// Carries out a `ledgerWrite` event's `file` (`{"path","expected","text"}`: `text` null deletes).
inline Written compare_and_write(const Value& file) {
    const std::string& path = file["path"].as_string();
    Value now = content_of(path);
    if (now != file["expected"]) return Written{now, "it changed since the ledger last saw it: nothing was written"};
    const auto fs_path = std::filesystem::u8path(path);
    std::string failed;
    if (file["text"].is_null()) {
        std::error_code error;
        if (!std::filesystem::remove(fs_path, error) && error) failed = "cannot delete it: " + error.message();
    } else {
        std::ofstream out(fs_path, std::ios::binary | std::ios::trunc);
        const std::string& text = file["text"].as_string();
        out.write(text.data(), static_cast<std::streamsize>(text.size()));
        if (!out.flush()) failed = "cannot write it";
    }
    return Written{content_of(path), failed};
}

} // namespace ledger_files
