// Replays the shared transcript vectors (tests/vectors/*.json, format in its README.md)
// through the engine-level C API, byte for byte: every Transmit's outbound buffer must equal
// the expected HTTP text followed by the expected frames encoded, and every event must equal
// the expected event JSON. Usage: replay_vectors <vectors dir>. Exit 0 when all pass.
#include "idelink.h"
#include "mini_json.hpp"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace {

using mini_json::Value;
using Bytes = std::vector<unsigned char>;

struct Failure : std::runtime_error {
    using std::runtime_error::runtime_error;
};

void check(IdelinkStatus status, const char* call) {
    if (status != IDELINK_OK)
        throw Failure(std::string(call) + " failed (" + std::to_string(status) + "): " +
                      idelink_last_error_message());
}

Bytes from_hex(const std::string& hex) {
    Bytes out;
    std::string digits;
    for (char c : hex)
        if (c != ' ' && c != '\n' && c != '\t' && c != '\r') digits += c;
    for (std::size_t i = 0; i + 1 < digits.size(); i += 2)
        out.push_back(static_cast<unsigned char>(std::stoul(digits.substr(i, 2), nullptr, 16)));
    return out;
}

void append(Bytes& out, const std::string& text) { out.insert(out.end(), text.begin(), text.end()); }

// One `{text|binary|ping|pong|close}` frame description, masked with `mask` when given.
void encode_frame(const Value& frame, const unsigned char* mask, Bytes& out) {
    unsigned char opcode = 0;
    Bytes payload;
    if (frame.find("text")) { opcode = 0x1; append(payload, frame["text"].as_string()); }
    else if (frame.find("binary")) { opcode = 0x2; payload = from_hex(frame["binary"].as_string()); }
    else if (frame.find("ping")) { opcode = 0x9; append(payload, frame["ping"].as_string()); }
    else if (frame.find("pong")) { opcode = 0xA; append(payload, frame["pong"].as_string()); }
    else if (frame.find("close")) {
        opcode = 0x8;
        const auto& close = frame["close"].items();
        if (!close.empty()) {
            auto code = static_cast<unsigned>(close[0].as_u64());
            payload.push_back(static_cast<unsigned char>(code >> 8));
            payload.push_back(static_cast<unsigned char>(code & 0xff));
            if (close.size() > 1) append(payload, close[1].as_string());
        }
    } else {
        throw Failure("unknown frame " + frame.dump());
    }
    if (frame.find("opcode")) opcode = static_cast<unsigned char>(frame["opcode"].as_u64());
    bool fin = frame.find("fin") ? frame["fin"].as_bool() : true;
    out.push_back(static_cast<unsigned char>((fin ? 0x80 : 0) | opcode));
    unsigned char mask_bit = mask ? 0x80 : 0;
    std::size_t n = payload.size();
    if (n <= 125) {
        out.push_back(static_cast<unsigned char>(mask_bit | n));
    } else if (n <= 0xffff) {
        out.push_back(mask_bit | 126);
        out.push_back(static_cast<unsigned char>(n >> 8));
        out.push_back(static_cast<unsigned char>(n & 0xff));
    } else {
        out.push_back(mask_bit | 127);
        for (int shift = 56; shift >= 0; shift -= 8)
            out.push_back(static_cast<unsigned char>((static_cast<std::uint64_t>(n) >> shift) & 0xff));
    }
    if (mask) {
        out.insert(out.end(), mask, mask + 4);
        for (std::size_t i = 0; i < n; ++i) out.push_back(payload[i] ^ mask[i % 4]);
    } else {
        out.insert(out.end(), payload.begin(), payload.end());
    }
}

// The bytes a `send` item stands for: its HTTP text, then its frames, unmasked.
Bytes expected_send(const Value& item) {
    Bytes out;
    if (item.find("http")) append(out, item["http"].as_string());
    if (item.find("frames"))
        for (const auto& frame : item["frames"].items()) encode_frame(frame, nullptr, out);
    return out;
}

std::string printable(const Bytes& bytes) {
    std::string out;
    for (unsigned char b : bytes) {
        if (b >= 0x20 && b < 0x7f) out += static_cast<char>(b);
        else { char buf[8]; std::snprintf(buf, sizeof buf, "\\x%02x", b); out += buf; }
    }
    return out;
}

// A `snapshot` step's EditorSnapshot JSON as the C structs an editor would fill in; the
// strings point into `json`, which outlives the call.
struct CSnapshot {
    std::vector<IdelinkDocument> documents;
    IdelinkActiveDocument active{};
    bool has_active = false;
    std::vector<IdelinkDiagnostic> diagnostics;
    std::vector<IdelinkFileDiagnostics> files;
    std::vector<const char*> folders;

    static const char* optional(const Value& v) { return v.is_string() ? v.as_string().c_str() : nullptr; }
    static IdelinkRange range(const Value& v) {
        auto at = [](const Value& p) {
            return IdelinkPosition{static_cast<std::uint32_t>(p["line"].as_u64()),
                                   static_cast<std::uint32_t>(p["character"].as_u64())};
        };
        if (v.is_null()) return IdelinkRange{};
        return IdelinkRange{at(v["start"]), at(v["end"])};
    }
    static std::uint32_t severity(const std::string& name) {
        if (name == "Error") return IDELINK_SEVERITY_ERROR;
        if (name == "Warning") return IDELINK_SEVERITY_WARNING;
        if (name == "Info") return IDELINK_SEVERITY_INFO;
        if (name == "Hint") return IDELINK_SEVERITY_HINT;
        throw Failure("unknown severity " + name);
    }

    explicit CSnapshot(const Value& json) {
        if (json.find("documents"))
            for (const auto& d : json["documents"].items())
                documents.push_back(IdelinkDocument{d["path"].as_string().c_str(), optional(d["languageId"]),
                                                    d.find("isDirty") && d["isDirty"].as_bool(),
                                                    d.find("isUntitled") && d["isUntitled"].as_bool()});
        if (json.find("active") && !json["active"].is_null()) {
            const Value& a = json["active"];
            active = IdelinkActiveDocument{a["path"].as_string().c_str(), optional(a["text"]), range(a["selection"])};
            has_active = true;
        }
        std::vector<std::size_t> counts;
        if (json.find("diagnostics"))
            for (const auto& file : json["diagnostics"].items()) {
                counts.push_back(file["diagnostics"].items().size());
                for (const auto& d : file["diagnostics"].items()) {
                    const Value& code = d["code"];
                    diagnostics.push_back(IdelinkDiagnostic{
                        d["message"].as_string().c_str(), severity(d["severity"].as_string()), range(d["range"]),
                        optional(d["source"]), optional(code), code.is_number(),
                        code.is_number() ? static_cast<std::int64_t>(code.as_u64()) : 0});
                }
            }
        std::size_t start = 0, i = 0;
        if (json.find("diagnostics"))
            for (const auto& file : json["diagnostics"].items()) {
                files.push_back(IdelinkFileDiagnostics{file["path"].as_string().c_str(),
                                                       diagnostics.data() + start, counts[i]});
                start += counts[i++];
            }
        if (json.find("workspaceFolders"))
            for (const auto& f : json["workspaceFolders"].items()) folders.push_back(f.as_string().c_str());
    }

    IdelinkSnapshot view() const {
        return IdelinkSnapshot{documents.data(), documents.size(), has_active ? &active : nullptr,
                               files.data(),     files.size(),     folders.data(), folders.size()};
    }
};

// A `snapshot` step: the snapshot through the C structs, and the changes it reported in the
// JSON form the vector expects first.
Value apply_snapshot(IdelinkEngine* engine, const Value& step) {
    CSnapshot snapshot(step["snapshot"]);
    IdelinkSnapshot view = snapshot.view();
    IdelinkSnapshotChanges changes{};
    check(idelink_engine_handle_snapshot(engine, step["at"].as_u64(), &view, &changes), "idelink_engine_handle_snapshot");
    Value reported = Value::object();
    reported.set("documents", Value::boolean(changes.documents));
    reported.set("active", Value::boolean(changes.active));
    reported.set("diagnostics", Value::boolean(changes.diagnostics));
    reported.set("workspaceFolders", Value::boolean(changes.workspace_folders));
    return reported;
}

// Runs one input through the C API.
void apply(IdelinkEngine* engine, const Value& step) {
    static const unsigned char kMask[4] = {0x37, 0xfa, 0x21, 0x3d};
    const std::uint64_t at = step["at"].as_u64();
    const std::string& what = step["do"].as_string();
    if (what == "accept") {
        std::uint64_t conn = 0;
        check(idelink_engine_handle_accept(engine, at, &conn), "idelink_engine_handle_accept");
    } else if (what == "bytes") {
        Bytes bytes;
        if (step.find("http")) append(bytes, step["http"].as_string());
        if (step.find("frames"))
            for (const auto& frame : step["frames"].items()) encode_frame(frame, kMask, bytes);
        if (step.find("hex")) { Bytes raw = from_hex(step["hex"].as_string()); bytes.insert(bytes.end(), raw.begin(), raw.end()); }
        check(idelink_engine_handle_bytes(engine, at, step["conn"].as_u64(), bytes.data(), bytes.size()),
              "idelink_engine_handle_bytes");
    } else if (what == "closed") {
        check(idelink_engine_handle_closed(engine, at, step["conn"].as_u64()), "idelink_engine_handle_closed");
    } else if (what == "close") {
        check(idelink_engine_close(engine, at, step["conn"].as_u64()), "idelink_engine_close");
    } else if (what == "editor") {
        check(idelink_engine_handle_editor_event(engine, at, step["event"].dump().c_str()),
              "idelink_engine_handle_editor_event");
    } else if (what == "outcome") {
        check(idelink_engine_handle_tool_outcome(engine, at, step["id"].as_u64(), step["outcome"].dump().c_str()),
              "idelink_engine_handle_tool_outcome");
    } else if (what == "timeout") {
        check(idelink_engine_handle_timeout(engine, at), "idelink_engine_handle_timeout");
    } else if (what == "choose") {
        const Value& choice = step["choice"];
        const std::string text = choice.dump();
        check(idelink_engine_choose_session(engine, at, text == "null" ? nullptr : text.c_str()),
              "idelink_engine_choose_session");
    } else if (what == "ledgerRead") {
        check(idelink_engine_handle_ledger_read(engine, at, step["read"].as_u64(), step["content"].dump().c_str()),
              "idelink_engine_handle_ledger_read");
    } else if (what == "ledgerWritten") {
        check(idelink_engine_handle_ledger_written(engine, at, step["write"].as_u64(), step["nowHolds"].dump().c_str()),
              "idelink_engine_handle_ledger_written");
    } else if (what == "fileSeen") {
        check(idelink_engine_handle_file_seen(engine, at, step["path"].as_string().c_str(),
                                              step["content"].dump().c_str(), step["previous"].dump().c_str()),
              "idelink_engine_handle_file_seen");
    } else {
        throw Failure("unknown input " + what);
    }
}

// What a call returned (a `sessions` or `snapshot` step's value) against the first item of
// the step's `expect`, `{ "<key>": ... }`.
void compare_reported(const Value& step, const std::string& key, const Value& actual) {
    const auto& expected = step["expect"].items();
    if (expected.empty() || !expected[0].find(key) || expected[0][key] != actual)
        throw Failure(key + " differs\n  expected: " +
                      (expected.empty() ? std::string("nothing") : expected[0].dump()) +
                      "\n  actual:   " + actual.dump());
}

// Drains the outputs after one input and compares them with `expect`, item by item, from
// item `first` on.
void drain_and_compare(IdelinkEngine* engine, const Value& expect, std::size_t first = 0) {
    const auto& expected = expect.items();
    std::size_t i = first;
    while (true) {
        IdelinkOutput out{};
        check(idelink_engine_poll_output(engine, &out), "idelink_engine_poll_output");
        if (out.kind == IDELINK_OUTPUT_NONE) break;
        std::string actual_text;
        bool same = false;
        const Value* want = i < expected.size() ? &expected[i] : nullptr;
        if (out.kind == IDELINK_OUTPUT_TRANSMIT) {
            const std::uint8_t* data = nullptr;
            std::size_t len = 0;
            check(idelink_engine_outbound(engine, out.conn, &data, &len), "idelink_engine_outbound");
            Bytes got(data, data + len);
            check(idelink_engine_handle_sent(engine, out.conn, len), "idelink_engine_handle_sent");
            actual_text = "send " + std::to_string(out.conn) + ": " + printable(got);
            same = want && want->find("send") && (*want)["send"].as_u64() == out.conn &&
                   expected_send(*want) == got;
            if (want && want->find("send")) actual_text += "\n  expected bytes: " + printable(expected_send(*want));
        } else if (out.kind == IDELINK_OUTPUT_CLOSE_TRANSPORT) {
            actual_text = "closeTransport " + std::to_string(out.conn);
            same = want && want->find("closeTransport") && (*want)["closeTransport"].as_u64() == out.conn;
        } else {
            std::string text = out.event_json;
            idelink_string_free(out.event_json);
            actual_text = "event " + text;
            same = want && want->find("event") && (*want)["event"] == mini_json::parse(text);
        }
        if (!same)
            throw Failure("output " + std::to_string(i) + " differs\n  expected: " +
                          (want ? want->dump() : std::string("nothing")) + "\n  actual:   " + actual_text);
        ++i;
    }
    if (i != expected.size())
        throw Failure("expected " + std::to_string(expected.size()) + " outputs, got " + std::to_string(i));
}

struct Engine {
    IdelinkEngine* ptr = nullptr;
    ~Engine() { idelink_engine_free(ptr); }
};

void replay(const std::filesystem::path& file) {
    std::ifstream in(file, std::ios::binary);
    std::stringstream text;
    text << in.rdbuf();
    Value vector = mini_json::parse(text.str());
    Engine engine;
    check(idelink_engine_new(vector["config"].dump().c_str(), vector["token"].as_string().c_str(), &engine.ptr),
          "idelink_engine_new");
    std::size_t index = 0;
    for (const auto& step : vector["steps"].items()) {
        try {
            if (step["do"].as_string() == "sessions") {
                char* text = nullptr;
                check(idelink_engine_sessions(engine.ptr, &text), "idelink_engine_sessions");
                Value sessions = mini_json::parse(text);
                idelink_string_free(text);
                compare_reported(step, "sessions", sessions);
                drain_and_compare(engine.ptr, step["expect"], 1);
            } else if (step["do"].as_string() == "ledger") {
                char* text = nullptr;
                check(idelink_engine_ledger(engine.ptr, &text), "idelink_engine_ledger");
                Value ledger = mini_json::parse(text);
                idelink_string_free(text);
                compare_reported(step, "ledger", ledger);
                drain_and_compare(engine.ptr, step["expect"], 1);
            } else if (step["do"].as_string() == "ledgerUndo") {
                const std::string target = step["target"].dump();
                if (idelink_engine_ledger_undo(engine.ptr, step["at"].as_u64(), target.c_str()) == IDELINK_OK) {
                    drain_and_compare(engine.ptr, step["expect"]);
                } else {
                    std::string quoted;
                    mini_json::write_string(quoted, idelink_last_error_message());
                    Value refused = mini_json::parse(quoted);
                    compare_reported(step, "refused", refused);
                    drain_and_compare(engine.ptr, step["expect"], 1);
                }
            } else if (step["do"].as_string() == "snapshot") {
                compare_reported(step, "snapshotChanges", apply_snapshot(engine.ptr, step));
                drain_and_compare(engine.ptr, step["expect"], 1);
            } else {
                apply(engine.ptr, step);
                drain_and_compare(engine.ptr, step["expect"]);
            }
        } catch (const std::exception& e) {
            throw Failure("step " + std::to_string(index) + " (" + step["do"].as_string() + "): " + e.what());
        }
        ++index;
    }
}

} // namespace

int main(int argc, char** argv) {
    if (argc != 2) {
        std::fprintf(stderr, "usage: %s <tests/vectors directory>\n", argv[0]);
        return 2;
    }
    std::vector<std::filesystem::path> files;
    for (const auto& entry : std::filesystem::directory_iterator(argv[1]))
        if (entry.path().extension() == ".json") files.push_back(entry.path());
    std::sort(files.begin(), files.end());
    if (files.size() < 5) {
        std::fprintf(stderr, "expected the vector files in %s, found %zu\n", argv[1], files.size());
        return 1;
    }
    int failed = 0;
    for (const auto& file : files) {
        try {
            replay(file);
            std::printf("ok   %s\n", file.filename().string().c_str());
        } catch (const std::exception& e) {
            std::printf("FAIL %s: %s\n", file.filename().string().c_str(), e.what());
            ++failed;
        }
    }
    std::printf("%zu vectors, %d failed\n", files.size(), failed);
    return failed ? 1 : 0;
}
