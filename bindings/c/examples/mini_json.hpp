// mini_json.hpp: a small JSON reader and writer for the idelink C++ example and tests.
//
// Enough for idelink's event, editor event and outcome texts (RFC 8259): objects keep their
// member order, numbers keep their source spelling, strings are UTF-8 (\uXXXX escapes,
// surrogate pairs included, are decoded). Errors throw mini_json::Error with the offset.
// An editor with its own JSON library uses that instead; nothing here is part of the C API.
#pragma once

#include <cstdint>
#include <cstdio>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace mini_json {

struct Error : std::runtime_error {
    using std::runtime_error::runtime_error;
};

class Value {
public:
    enum class Kind { Null, Bool, Number, String, Array, Object };

    Value() = default;
    static Value boolean(bool b) { Value v; v.kind_ = Kind::Bool; v.bool_ = b; return v; }
    static Value number(std::string text) { Value v; v.kind_ = Kind::Number; v.text_ = std::move(text); return v; }
    static Value number(std::uint64_t n) { return number(std::to_string(n)); }
    static Value string(std::string text) { Value v; v.kind_ = Kind::String; v.text_ = std::move(text); return v; }
    static Value array() { Value v; v.kind_ = Kind::Array; return v; }
    static Value object() { Value v; v.kind_ = Kind::Object; return v; }

    Kind kind() const { return kind_; }
    bool is_null() const { return kind_ == Kind::Null; }
    bool is_string() const { return kind_ == Kind::String; }
    bool is_number() const { return kind_ == Kind::Number; }
    bool is_array() const { return kind_ == Kind::Array; }
    bool is_object() const { return kind_ == Kind::Object; }

    bool as_bool() const { expect(Kind::Bool, "a boolean"); return bool_; }
    const std::string& as_string() const { expect(Kind::String, "a string"); return text_; }
    std::uint64_t as_u64() const {
        expect(Kind::Number, "a number");
        std::uint64_t n = 0;
        for (char c : text_) {
            if (c < '0' || c > '9') throw Error("not a non-negative integer: " + text_);
            n = n * 10 + static_cast<std::uint64_t>(c - '0');
        }
        return n;
    }
    const std::vector<Value>& items() const { expect(Kind::Array, "an array"); return items_; }
    const std::vector<std::pair<std::string, Value>>& members() const {
        expect(Kind::Object, "an object");
        return members_;
    }

    // The member `key` of an object, or nullptr (also for a non-object).
    const Value* find(std::string_view key) const {
        if (kind_ != Kind::Object) return nullptr;
        for (const auto& m : members_)
            if (m.first == key) return &m.second;
        return nullptr;
    }
    // The member `key`, or a null value when absent.
    const Value& operator[](std::string_view key) const {
        static const Value null_value;
        const Value* found = find(key);
        return found ? *found : null_value;
    }

    void push(Value v) { expect(Kind::Array, "an array"); items_.push_back(std::move(v)); }
    Value& set(std::string key, Value v) {
        expect(Kind::Object, "an object");
        for (auto& m : members_)
            if (m.first == key) { m.second = std::move(v); return m.second; }
        members_.emplace_back(std::move(key), std::move(v));
        return members_.back().second;
    }

    // Structural equality: objects compare as maps (member order ignored), numbers by spelling.
    friend bool operator==(const Value& a, const Value& b) {
        if (a.kind_ != b.kind_) return false;
        switch (a.kind_) {
        case Kind::Null: return true;
        case Kind::Bool: return a.bool_ == b.bool_;
        case Kind::Number:
        case Kind::String: return a.text_ == b.text_;
        case Kind::Array: return a.items_ == b.items_;
        case Kind::Object:
            if (a.members_.size() != b.members_.size()) return false;
            for (const auto& m : a.members_) {
                const Value* other = b.find(m.first);
                if (!other || !(*other == m.second)) return false;
            }
            return true;
        }
        return false;
    }
    friend bool operator!=(const Value& a, const Value& b) { return !(a == b); }

    // Compact JSON text.
    std::string dump() const { std::string out; write(out); return out; }

private:
    void expect(Kind k, const char* what) const {
        if (kind_ != k) throw Error(std::string("expected ") + what + ", got " + dump());
    }
    void write(std::string& out) const;

    Kind kind_ = Kind::Null;
    bool bool_ = false;
    std::string text_;
    std::vector<Value> items_;
    std::vector<std::pair<std::string, Value>> members_;
};

inline void write_string(std::string& out, std::string_view s) {
    out += '"';
    for (unsigned char c : s) {
        switch (c) {
        case '"': out += "\\\""; break;
        case '\\': out += "\\\\"; break;
        case '\n': out += "\\n"; break;
        case '\r': out += "\\r"; break;
        case '\t': out += "\\t"; break;
        case '\b': out += "\\b"; break;
        case '\f': out += "\\f"; break;
        default:
            if (c < 0x20) {
                char buf[8];
                std::snprintf(buf, sizeof buf, "\\u%04x", c);
                out += buf;
            } else {
                out += static_cast<char>(c);
            }
        }
    }
    out += '"';
}

inline void Value::write(std::string& out) const {
    switch (kind_) {
    case Kind::Null: out += "null"; break;
    case Kind::Bool: out += bool_ ? "true" : "false"; break;
    case Kind::Number: out += text_; break;
    case Kind::String: write_string(out, text_); break;
    case Kind::Array:
        out += '[';
        for (std::size_t i = 0; i < items_.size(); ++i) {
            if (i) out += ',';
            items_[i].write(out);
        }
        out += ']';
        break;
    case Kind::Object:
        out += '{';
        for (std::size_t i = 0; i < members_.size(); ++i) {
            if (i) out += ',';
            write_string(out, members_[i].first);
            out += ':';
            members_[i].second.write(out);
        }
        out += '}';
        break;
    }
}

class Parser {
public:
    explicit Parser(std::string_view text) : s_(text) {}

    Value parse_document() {
        Value v = parse_value(0);
        skip_ws();
        if (i_ != s_.size()) fail("trailing characters");
        return v;
    }

private:
    [[noreturn]] void fail(const std::string& why) const {
        throw Error("JSON: " + why + " at offset " + std::to_string(i_));
    }
    void skip_ws() {
        while (i_ < s_.size() && (s_[i_] == ' ' || s_[i_] == '\n' || s_[i_] == '\r' || s_[i_] == '\t')) ++i_;
    }
    bool eat(char c) {
        skip_ws();
        if (i_ < s_.size() && s_[i_] == c) { ++i_; return true; }
        return false;
    }
    void literal(std::string_view word) {
        if (s_.substr(i_, word.size()) != word) fail("invalid literal");
        i_ += word.size();
    }

    Value parse_value(int depth) {
        if (depth > 128) fail("nested too deeply");
        skip_ws();
        if (i_ >= s_.size()) fail("unexpected end");
        char c = s_[i_];
        if (c == '{') {
            ++i_;
            Value obj = Value::object();
            if (eat('}')) return obj;
            do {
                skip_ws();
                if (i_ >= s_.size() || s_[i_] != '"') fail("expected a member name");
                std::string key = parse_string();
                if (!eat(':')) fail("expected ':'");
                obj.set(std::move(key), parse_value(depth + 1));
            } while (eat(','));
            if (!eat('}')) fail("expected ',' or '}'");
            return obj;
        }
        if (c == '[') {
            ++i_;
            Value arr = Value::array();
            if (eat(']')) return arr;
            do {
                arr.push(parse_value(depth + 1));
            } while (eat(','));
            if (!eat(']')) fail("expected ',' or ']'");
            return arr;
        }
        if (c == '"') return Value::string(parse_string());
        if (c == 't') { literal("true"); return Value::boolean(true); }
        if (c == 'f') { literal("false"); return Value::boolean(false); }
        if (c == 'n') { literal("null"); return Value(); }
        if (c == '-' || (c >= '0' && c <= '9')) {
            std::size_t start = i_;
            while (i_ < s_.size() && std::string_view("+-0123456789.eE").find(s_[i_]) != std::string_view::npos) ++i_;
            return Value::number(std::string(s_.substr(start, i_ - start)));
        }
        fail(std::string("unexpected character '") + c + "'");
    }

    unsigned hex4() {
        if (i_ + 4 > s_.size()) fail("truncated \\u escape");
        unsigned v = 0;
        for (int k = 0; k < 4; ++k) {
            char h = s_[i_++];
            v <<= 4;
            if (h >= '0' && h <= '9') v |= static_cast<unsigned>(h - '0');
            else if (h >= 'a' && h <= 'f') v |= static_cast<unsigned>(h - 'a' + 10);
            else if (h >= 'A' && h <= 'F') v |= static_cast<unsigned>(h - 'A' + 10);
            else fail("invalid \\u escape");
        }
        return v;
    }

    static void put_utf8(std::string& out, unsigned cp) {
        if (cp < 0x80) {
            out += static_cast<char>(cp);
        } else if (cp < 0x800) {
            out += static_cast<char>(0xC0 | (cp >> 6));
            out += static_cast<char>(0x80 | (cp & 0x3F));
        } else if (cp < 0x10000) {
            out += static_cast<char>(0xE0 | (cp >> 12));
            out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
            out += static_cast<char>(0x80 | (cp & 0x3F));
        } else {
            out += static_cast<char>(0xF0 | (cp >> 18));
            out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
            out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
            out += static_cast<char>(0x80 | (cp & 0x3F));
        }
    }

    std::string parse_string() {
        ++i_; // the opening quote
        std::string out;
        while (true) {
            if (i_ >= s_.size()) fail("unterminated string");
            char c = s_[i_++];
            if (c == '"') return out;
            if (c != '\\') { out += c; continue; }
            if (i_ >= s_.size()) fail("unterminated escape");
            char e = s_[i_++];
            switch (e) {
            case '"': out += '"'; break;
            case '\\': out += '\\'; break;
            case '/': out += '/'; break;
            case 'b': out += '\b'; break;
            case 'f': out += '\f'; break;
            case 'n': out += '\n'; break;
            case 'r': out += '\r'; break;
            case 't': out += '\t'; break;
            case 'u': {
                unsigned cp = hex4();
                if (cp >= 0xD800 && cp < 0xDC00 && s_.substr(i_, 2) == "\\u") {
                    std::size_t back = i_;
                    i_ += 2;
                    unsigned low = hex4();
                    if (low >= 0xDC00 && low < 0xE000) cp = 0x10000 + ((cp - 0xD800) << 10) + (low - 0xDC00);
                    else i_ = back;
                }
                put_utf8(out, cp);
                break;
            }
            default: fail("invalid escape");
            }
        }
    }

    std::string_view s_;
    std::size_t i_ = 0;
};

inline Value parse(std::string_view text) { return Parser(text).parse_document(); }

} // namespace mini_json
