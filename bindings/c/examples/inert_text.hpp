// inert_text.hpp: untrusted text made inert and visible before it reaches a console.
//
// A proposal, a path, a tab name or a client name comes from the model or a peer. Printed as it
// is, a carriage return, an ANSI/ECMA-48 sequence (ESC[2K erases a line, ESC[1A moves up, OSC 52
// writes the clipboard, OSC 8 makes a link) or a Unicode bidi control (CVE-2021-42574, "Trojan
// Source") can make the screen show one text while `accept` accepts another. So every character
// a terminal would act on or not draw is replaced by a visible marker: C0 controls by their
// ECMA-48 names (<ESC>, <CR>, <LF>), DEL as <DEL>, C1 controls, bidi controls and invisible
// format characters as <U+XXXX> (<U+202E>), and a byte that is not UTF-8 as <0xNN>. Tab is kept.
// Nothing is dropped: what is shown is the text, character for character. The classes are the
// idelink command's own (apps/idelink/src/terminal/inert.rs).
#pragma once

#include <cstdint>
#include <cstdio>
#include <string>
#include <string_view>

namespace inert_text {

// What kinds of hidden characters a text held.
struct Findings {
    bool controls = false;  // C0 or C1 controls, DEL, bytes that are not UTF-8
    bool bidi = false;      // U+202A-U+202E, U+2066-U+2069, U+200E/F, U+061C
    bool invisible = false; // zero-width, soft hyphen, BOM, tags, variation selectors...
    bool any() const { return controls || bidi || invisible; }
};

namespace detail {

// The ASCII names of the C0 controls (ECMA-48 section 8.2).
constexpr const char* kC0Names[32] = {
    "NUL", "SOH", "STX", "ETX", "EOT", "ENQ", "ACK", "BEL", "BS", "HT", "LF",  "VT",  "FF", "CR", "SO", "SI",
    "DLE", "DC1", "DC2", "DC3", "DC4", "NAK", "SYN", "ETB", "CAN", "EM", "SUB", "ESC", "FS", "GS", "RS", "US"};

// Characters a terminal draws as nothing (Unicode general categories Cf, Zl, Zp, variation
// selectors, fillers), apart from the bidi controls classified on their own.
constexpr std::uint32_t kInvisible[][2] = {
    {0x00AD, 0x00AD},   {0x034F, 0x034F},   {0x0600, 0x0605},   {0x06DD, 0x06DD},   {0x070F, 0x070F},
    {0x08E2, 0x08E2},   {0x115F, 0x1160},   {0x17B4, 0x17B5},   {0x180B, 0x180F},   {0x200B, 0x200D},
    {0x2028, 0x2029},   {0x2060, 0x2064},   {0x206A, 0x206F},   {0x3164, 0x3164},   {0xFE00, 0xFE0F},
    {0xFEFF, 0xFEFF},   {0xFFA0, 0xFFA0},   {0xFFF9, 0xFFFB},   {0x110BD, 0x110BD}, {0x110CD, 0x110CD},
    {0x13430, 0x1343F}, {0x1BCA0, 0x1BCA3}, {0x1D173, 0x1D17A}, {0xE0000, 0xE007F}, {0xE0100, 0xE01EF}};

enum class Hidden { None, Control, Bidi, Invisible };

inline Hidden classify(std::uint32_t c) {
    if (c == 0x09 || (c >= 0x20 && c <= 0x7E) || (c >= 0xA0 && c <= 0xAC)) return Hidden::None;
    if (c <= 0x1F || (c >= 0x7F && c <= 0x9F)) return Hidden::Control;
    // Unicode TR#9 explicit formatting characters and the implicit marks.
    if ((c >= 0x202A && c <= 0x202E) || (c >= 0x2066 && c <= 0x2069) || c == 0x200E || c == 0x200F || c == 0x061C)
        return Hidden::Bidi;
    for (const auto& range : kInvisible)
        if (c >= range[0] && c <= range[1]) return Hidden::Invisible;
    return Hidden::None;
}

// Decodes the UTF-8 sequence at text[at] (RFC 3629: no overlong forms, no surrogates, nothing
// past U+10FFFF); returns its length, or 0 when the byte does not start a valid sequence.
inline std::size_t decode(std::string_view text, std::size_t at, std::uint32_t& code) {
    const auto byte = [&](std::size_t i) { return static_cast<unsigned char>(text[at + i]); };
    const unsigned char first = byte(0);
    std::size_t length = first < 0x80 ? 1 : first >= 0xC2 && first <= 0xDF ? 2 : first >= 0xE0 && first <= 0xEF ? 3
                                        : first >= 0xF0 && first <= 0xF4 ? 4 : 0;
    if (length == 0 || at + length > text.size()) return 0;
    code = length == 1 ? first : first & (0x7F >> length);
    for (std::size_t i = 1; i < length; ++i) {
        if ((byte(i) & 0xC0) != 0x80) return 0;
        code = code << 6 | (byte(i) & 0x3F);
    }
    const std::uint32_t least[] = {0, 0, 0x80, 0x800, 0x10000};
    if (code < least[length] || code > 0x10FFFF || (code >= 0xD800 && code <= 0xDFFF)) return 0;
    return length;
}

} // namespace detail

// `text` with every hidden character replaced by its visible marker; what was found is added
// to `found` when given.
inline std::string inert(std::string_view text, Findings* found = nullptr) {
    std::string out;
    out.reserve(text.size());
    char marker[16];
    for (std::size_t at = 0; at < text.size();) {
        std::uint32_t code = 0;
        const std::size_t length = detail::decode(text, at, code);
        if (length == 0) {
            std::snprintf(marker, sizeof marker, "<0x%02X>", static_cast<unsigned char>(text[at]));
            out += marker;
            if (found) found->controls = true;
            ++at;
            continue;
        }
        const detail::Hidden hidden = detail::classify(code);
        if (hidden == detail::Hidden::None) {
            out.append(text, at, length);
        } else {
            if (code < 0x20) std::snprintf(marker, sizeof marker, "<%s>", detail::kC0Names[code]);
            else if (code == 0x7F) std::snprintf(marker, sizeof marker, "<DEL>");
            else std::snprintf(marker, sizeof marker, "<U+%04X>", static_cast<unsigned>(code));
            out += marker;
            if (found) {
                found->controls |= hidden == detail::Hidden::Control;
                found->bidi |= hidden == detail::Hidden::Bidi;
                found->invisible |= hidden == detail::Hidden::Invisible;
            }
        }
        at += length;
    }
    return out;
}

// A warning naming what was found, for the line after a diff's header.
inline std::string warning(const Findings& found) {
    std::string kinds;
    const auto add = [&](bool present, const char* name) {
        if (!present) return;
        if (!kinds.empty()) kinds += " and ";
        kinds += name;
    };
    add(found.controls, "control characters");
    add(found.bidi, "bidi controls (text may read reordered)");
    add(found.invisible, "invisible characters");
    return "! warning: this diff holds " + kinds + ", shown as <NAME> or <U+XXXX>";
}

} // namespace inert_text
