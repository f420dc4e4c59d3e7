// frame_editor: a small C++17 "editor" that embeds idelink the way a game editor would.
//
// Every frame (60 per second) it reads its console, publishes its whole visible state (open
// documents, the active one and its selection) to idelink as one snapshot, polls the host with
// a timeout of 0, and handles the events (the snapshot costs nothing when nothing changed:
// idelink compares it with the previous frame's and sends only the difference): an `openDiff`
// is shown in the console and accepted or rejected (by --diff, or by typing `accept ID` /
// `reject ID`). On exit (`quit`, end of a SIGINT/SIGTERM; on Windows also Ctrl-C, Ctrl-Break
// and closing the console) it shuts the host down, which closes the clients and removes its
// lock file.
//
// Tool arguments are untrusted text from the model (docs/embedding.md, "Tool arguments are
// untrusted"), and this editor treats them so:
// - everything it prints goes through inert_text.hpp: escape sequences, carriage returns, bidi
//   and invisible characters are shown as <ESC>, <CR>, <U+202E>, and a diff holding any says so;
// - a file is read only by regular_file.hpp's rules (opened without blocking, a regular file
//   by fstat on the handle, at most 64 MiB), so a FIFO or /dev/zero cannot stall the frame;
// - every pending diff is kept under its call id and answered by that id, so a second
//   `openDiff` cannot take the place of the first one the user is looking at.
//
// With --ledger it keeps idelink's turn ledger (docs/embedding.md, "The turn ledger"): every file
// claude changed in a prompt's turn, hunk by hunk, whether it asked or not; the engine's file
// requests are answered from disk (ledger_files.hpp: this editor's tabs hold no unsaved edits,
// and an open tab follows its file), and an undo is a compare-and-write.
//
//   frame_editor [--name NAME] [--lock-dir DIR] [--diff ask|accept|reject] [--ledger] [--headless] WORKSPACE
//
// Console commands (one per line on stdin):
//   open PATH                 open PATH (absolute, or relative to WORKSPACE) in a tab, if it is
//                             not open yet, and make it the active document (caret at 0:0)
//   select LINE FROM TO       select characters FROM..TO of LINE (0-based) in the active document
//   close PATH                close PATH's tab; closing the active document leaves none active
//                             (the active document is sticky otherwise), and claude sees no file
//   accept ID [TEXT]          accept the diff call#ID; with TEXT, the user first appended the
//                             line TEXT to the proposed contents in the diff view
//   reject ID                 reject the diff call#ID
//   mention FROM TO           send lines FROM..TO (0-based) of the active document to claude
//   sessions                  list the claude sessions (idelink_host_sessions)
//   choose pid N | conn N | none
//                             choose the session mentions go to (idelink_host_choose_session)
//   turns                     list the ledger's turns: files, lines added and removed, auto or
//                             reviewed (idelink_host_ledger)
//   undo TURN [PATH [HUNK]]   undo turn TURN, its change of PATH, or hunk HUNK (from 1) of it
//                             (idelink_host_ledger_undo); a refusal prints the engine's reason
//   quit                      shut down and exit
#include "idelink.h"
#ifdef _WIN32
#define NOMINMAX
#define WIN32_LEAN_AND_MEAN
#include <windows.h>
#endif
#include "inert_text.hpp"
#include "ledger_files.hpp"
#include "mini_json.hpp"
#include "regular_file.hpp"

#include <atomic>
#include <cctype>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <deque>
#include <iostream>
#include <map>
#include <mutex>
#include <optional>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

namespace {

using mini_json::Value;

volatile std::sig_atomic_t g_stop = 0;
void on_signal(int) { g_stop = 1; }

#ifdef _WIN32
// Windows consoles: Ctrl-C and Ctrl-Break stop the frame loop like SIGINT. Closing the console
// window, logging off or shutting down end the process as soon as the handler returns (and at
// the latest after about 5 s), so the handler holds it until main has shut the host down and
// removed the lock ("HandlerRoutine callback function", learn.microsoft.com).
HANDLE g_stopped = nullptr;
BOOL WINAPI on_console_event(DWORD event) {
    g_stop = 1;
    const bool ends_process = event == CTRL_CLOSE_EVENT || event == CTRL_LOGOFF_EVENT ||
                              event == CTRL_SHUTDOWN_EVENT;
    if (ends_process && g_stopped) WaitForSingleObject(g_stopped, 4500);
    return TRUE;
}
#endif

// The console: a thread reads lines so the frame loop never blocks on stdin.
class Console {
public:
    Console() {
        std::thread([this] {
            std::string line;
            while (std::getline(std::cin, line)) {
                std::lock_guard<std::mutex> lock(mutex_);
                lines_.push_back(line);
            }
        }).detach();
    }
    std::optional<std::string> next() {
        std::lock_guard<std::mutex> lock(mutex_);
        if (lines_.empty()) return std::nullopt;
        std::string line = lines_.front();
        lines_.pop_front();
        return line;
    }

private:
    std::mutex mutex_;
    std::deque<std::string> lines_;
};

// Prints one console line, made inert: the lines quote paths, names and texts from the model.
void say(const std::string& line) {
    std::cout << inert_text::inert(line) << std::endl; // flushed: tests read the console line by line
}

std::vector<std::string> split_lines(const std::string& text) {
    std::vector<std::string> lines;
    std::string line;
    std::istringstream in(text);
    while (std::getline(in, line)) lines.push_back(line);
    return lines;
}

// An open document (a tab).
struct Document {
    std::string path;
    std::string contents;
    std::string language_id; // empty when unknown
};

// The language id idelink derives from a file name ("cpp", "plaintext", ...), or "".
std::string language_of(const std::string& path) {
    char* id = nullptr;
    if (idelink_language_id(path.c_str(), &id) != IDELINK_OK || !id) return "";
    std::string out = id;
    idelink_string_free(id);
    return out;
}

// The active document's selection, and the text it selects.
struct Selection {
    unsigned line = 0, from = 0, to = 0;
    std::string text;
};

// A diff the user is looking at (kept under its call id).
struct PendingDiff {
    std::string path;
    std::string proposed;
    // The file's text the diff was shown against (an accept's `originalText`; empty for a file
    // that does not exist), when known.
    bool has_original = false;
    std::string original;
};

class Editor {
public:
    Editor(IdelinkHost* host, std::string workspace, std::string policy)
        : host_(host), workspace_(std::move(workspace)), policy_(std::move(policy)) {}

    // One frame: console, publish, poll, events.
    bool frame() {
        while (auto line = console_.next()) {
            if (!command(*line)) return false;
        }
        publish();
        if (!ok(idelink_host_poll(host_, 0), "idelink_host_poll")) return false;
        while (true) {
            char* json = nullptr;
            if (!ok(idelink_host_next_event(host_, &json), "idelink_host_next_event")) return false;
            if (!json) break;
            std::string text = json;
            idelink_string_free(json);
            handle(mini_json::parse(text));
        }
        return true;
    }

private:
    static bool ok(IdelinkStatus status, const char* call) {
        if (status == IDELINK_OK) return true;
        std::cerr << "frame_editor: " << call << ": " << idelink_last_error_message() << std::endl;
        return false;
    }

    // Absolute: `/…`, and on Windows a drive (`C:\…`, `C:/…`) or UNC (`\\server\share`) path.
    static bool is_absolute(const std::string& path) {
        if (!path.empty() && path[0] == '/') return true;
#ifdef _WIN32
        const bool drive = path.size() > 2 && std::isalpha(static_cast<unsigned char>(path[0])) &&
                           path[1] == ':' && (path[2] == '\\' || path[2] == '/');
        return drive || path.rfind("\\\\", 0) == 0;
#else
        return false;
#endif
    }
    std::string absolute(const std::string& path) const {
        return is_absolute(path) ? path : workspace_ + "/" + path;
    }
    // PATH relative to the workspace, for the console. idelink hands paths back as the CLI
    // sees them (docs/protocol.md §6: on Windows `C:/game/main.lua` for `C:\game\main.lua`), so
    // on Windows the comparison is on that spelling.
    std::string relative(const std::string& path) const {
        const std::string prefix = wire_spelling(workspace_) + "/";
        const std::string spelled = wire_spelling(path);
        return spelled.compare(0, prefix.size(), prefix) == 0 ? spelled.substr(prefix.size()) : path;
    }
    static std::string wire_spelling(std::string path) {
#ifdef _WIN32
        for (char& c : path) {
            if (c == '\\') c = '/';
        }
        if (path.size() > 1 && path[1] == ':') path[0] = static_cast<char>(std::toupper(static_cast<unsigned char>(path[0])));
#endif
        return path;
    }

    bool command(const std::string& line) {
        std::istringstream in(line);
        std::string verb;
        in >> verb;
        if (verb == "open") {
            std::string path;
            in >> path;
            open(absolute(path));
        } else if (verb == "select") {
            Selection selection;
            in >> selection.line >> selection.from >> selection.to;
            if (active_ < documents_.size()) {
                auto lines = split_lines(documents_[active_].contents);
                const unsigned line = selection.line, from = selection.from, to = selection.to;
                if (line < lines.size() && from <= to && to <= lines[line].size())
                    selection.text = lines[line].substr(from, to - from);
                selection_ = selection;
                selected_ = true;
            }
        } else if (verb == "close") {
            std::string path;
            in >> path;
            close(absolute(path));
        } else if (verb == "accept" || verb == "reject") {
            std::uint64_t id = 0;
            std::string extra;
            if (!(in >> id)) {
                say("which diff? type `" + verb + " ID` (the number of its call#)");
                return true;
            }
            std::getline(in >> std::ws, extra);
            answer(id, verb == "accept", extra);
        } else if (verb == "mention") {
            unsigned from = 0, to = 0;
            in >> from >> to;
            mention(from, to);
        } else if (verb == "sessions") {
            sessions();
        } else if (verb == "choose") {
            std::string by;
            std::uint64_t number = 0;
            in >> by >> number;
            choose(by, number);
        } else if (verb == "turns") {
            turns();
        } else if (verb == "undo") {
            std::uint64_t turn = 0;
            std::string path;
            unsigned hunk = 0;
            if (!(in >> turn)) {
                say("which turn? type `undo TURN [PATH [HUNK]]` (see turns)");
                return true;
            }
            in >> path >> hunk;
            undo(turn, path.empty() ? "" : absolute(path), hunk);
        } else if (verb == "quit") {
            return false;
        } else if (!verb.empty()) {
            say("unknown command: " + line);
        }
        return true;
    }

    // Opens `path` in a tab unless it is open, and makes it the active document. Returns why
    // not when the file cannot be read (regular_file.hpp's rules).
    std::optional<std::string> open(const std::string& path) {
        std::size_t tab = 0;
        while (tab < documents_.size() && documents_[tab].path != path) ++tab;
        if (tab == documents_.size()) {
            regular_file::Result file = regular_file::read(path);
            if (file.status == regular_file::Status::Refused) {
                say("cannot open " + relative(path) + ": " + file.error);
                return file.error;
            }
            documents_.push_back(Document{path, std::move(file.text), language_of(path)});
        }
        active_ = tab;
        selection_ = Selection{};
        selected_ = false;
        return std::nullopt;
    }

    // Closes `path`'s tab; the active document closing leaves none active.
    void close(const std::string& path) {
        for (std::size_t i = 0; i < documents_.size(); ++i) {
            if (documents_[i].path != path) continue;
            documents_.erase(documents_.begin() + static_cast<std::ptrdiff_t>(i));
            if (active_ == i) active_ = kNone;
            else if (active_ != kNone && active_ > i) --active_;
            return;
        }
    }

    // Publishes the whole visible state as one snapshot. The C structs point into the
    // editor's own strings, and their vectors keep their capacity from frame to frame: an
    // unchanged frame allocates nothing here or in idelink.
    void publish() {
        tabs_.clear();
        for (const auto& doc : documents_)
            tabs_.push_back(IdelinkDocument{doc.path.c_str(),
                                            doc.language_id.empty() ? nullptr : doc.language_id.c_str(), false, false});
        folders_.clear();
        folders_.push_back(workspace_.c_str());
        IdelinkActiveDocument active{};
        if (active_ < documents_.size()) {
            active.path = documents_[active_].path.c_str();
            active.text = selection_.text.c_str();
            active.selection = IdelinkRange{{selection_.line, selection_.from}, {selection_.line, selection_.to}};
        }
        IdelinkSnapshot snapshot{tabs_.data(), tabs_.size(), active_ < documents_.size() ? &active : nullptr,
                                 nullptr,      0,            folders_.data(), folders_.size()};
        IdelinkSnapshotChanges changes{};
        if (!ok(idelink_host_handle_snapshot(host_, &snapshot, &changes), "idelink_host_handle_snapshot") || !changes.active) return;
        if (active_ >= documents_.size()) {
            say("published no active document");
        } else if (selected_) {
            say("published selection " + relative(documents_[active_].path) + ":" + std::to_string(selection_.line) +
                " " + std::to_string(selection_.from) + "-" + std::to_string(selection_.to));
        } else {
            say("published active document " + relative(documents_[active_].path));
        }
    }

    void handle(const Value& event) {
        const std::string& kind = event["event"].as_string();
        const std::string conn = "conn#" + event["conn"].dump();
        if (kind == "connected") {
            const Value& agent = event["userAgent"];
            say(conn + " connected (" + (agent.is_string() ? agent.as_string() : "no user agent") + ")");
        } else if (kind == "sessionReady") {
            const Value& client = event["client"];
            const Value& pid = event["clientPid"];
            say(conn + " session ready: " + client["name"].as_string() + " " + client["version"].as_string() +
                (pid.is_number() ? ", pid " + pid.dump() : "") + " (MCP " + client["protocolVersion"].as_string() + ")");
        } else if (kind == "toolServed") {
            say(conn + " " + event["tool"].as_string());
        } else if (kind == "toolCall") {
            tool_call(event);
        } else if (kind == "fileReplaced") {
            // The file now holds exactly this text (once the CLI wrote it): an editor with buffers
            // replaces the document's buffer with it and marks it clean, with no conflict prompt.
            say("call#" + event["id"].dump() + " " + relative(event["path"].as_string()) + " now holds the accepted text (" +
                std::to_string(event["text"].as_string().size()) + " bytes)");
        } else if (kind == "toolCallCancelled") {
            say("call#" + event["id"].dump() + " cancelled: " + event["reason"].as_string());
            pending_.erase(event["id"].as_u64());
        } else if (kind == "closed") {
            say(conn + " closed: " + event["reason"]["kind"].as_string());
        } else if (kind == "ledgerRead") {
            ledger_read(event);
        } else if (kind == "ledgerWrite") {
            ledger_write(event);
        } else if (kind == "turnChanged") {
            turn_changed(event["change"]);
        }
    }

    // ---- sessions and mentions ---------------------------------------------------------------

    void mention(unsigned from, unsigned to) {
        if (active_ >= documents_.size()) {
            say("no active document to mention");
            return;
        }
        Value event = Value::object();
        event.set("type", Value::string("mention"));
        event.set("path", Value::string(documents_[active_].path));
        event.set("lineStart", Value::number(std::uint64_t{from}));
        event.set("lineEnd", Value::number(std::uint64_t{to}));
        if (ok(idelink_host_handle_editor_event(host_, event.dump().c_str()), "idelink_host_handle_editor_event"))
            say("mentioned " + relative(documents_[active_].path) + ":" + std::to_string(from) + "-" + std::to_string(to));
    }

    void sessions() {
        char* json = nullptr;
        if (!ok(idelink_host_sessions(host_, &json), "idelink_host_sessions")) return;
        Value list = mini_json::parse(json);
        idelink_string_free(json);
        if (list.items().empty()) say("no sessions");
        for (const Value& session : list.items()) {
            const Value& pid = session["pid"];
            say("session conn#" + session["conn"].dump() + (pid.is_number() ? " pid " + pid.dump() : " no pid") +
                (session["chosen"].as_bool() ? " (chosen)" : ""));
        }
    }

    void choose(const std::string& by, std::uint64_t number) {
        Value choice = Value::object();
        if (by == "pid" || by == "conn") {
            choice.set("by", Value::string(by));
            choice.set(by, Value::number(number));
        } else if (by != "none") {
            say("choose what? type `choose pid N`, `choose conn N` or `choose none`");
            return;
        }
        const std::string text = choice.dump();
        if (idelink_host_choose_session(host_, by == "none" ? nullptr : text.c_str()) != IDELINK_OK) {
            say("cannot choose " + by + " " + std::to_string(number) + ": " + idelink_last_error_message());
            return;
        }
        say(by == "none" ? "chose no session" : "chose " + by + " " + std::to_string(number));
    }

    // ---- the turn ledger ---------------------------------------------------------------------

    // A file claude is about to change, or has: what it holds (an open tab follows it).
    void ledger_read(const Value& event) {
        const std::string& path = event["path"].as_string();
        Value content = ledger_files::content_of(path);
        follow(path, content);
        ok(idelink_host_handle_ledger_read(host_, event["read"].as_u64(), content.dump().c_str()),
           "idelink_host_handle_ledger_read");
    }

    // An undo's write, as a compare-and-write.
    void ledger_write(const Value& event) {
        const Value& file = event["file"];
        const std::string& path = file["path"].as_string();
        ledger_files::Written written = ledger_files::compare_and_write(file);
        follow(path, written.holds);
        if (written.conflict.empty()) {
            say("undo " + std::string(file["text"].is_null() ? "deleted " : "wrote ") + relative(path));
        } else {
            say("undo refused for " + relative(path) + ": " + written.conflict);
        }
        ok(idelink_host_handle_ledger_written(host_, event["write"].as_u64(), written.holds.dump().c_str()),
           "idelink_host_handle_ledger_written");
    }

    // An open tab shows what its file holds now.
    void follow(const std::string& path, const Value& content) {
        for (auto& doc : documents_) {
            if (doc.path == path && content["kind"].as_string() == "text") doc.contents = content["text"].as_string();
        }
    }

    void turn_changed(const Value& change) {
        const std::string& what = change["change"].as_string();
        const std::string turn = "turn " + change["turn"].dump();
        if (what == "fileAdded") {
            say(turn + ": " + relative(change["path"].as_string()) + " added (" + change["changedBy"].as_string() + ")");
        } else if (what == "fileChanged") {
            say(turn + ": " + relative(change["path"].as_string()) + " revision " + change["revision"].dump() + ", " +
                change["hunks"].dump() + " hunks +" + change["added"].dump() + " -" + change["removed"].dump());
        } else if (what == "started" || what == "closed") {
            say(turn + " " + what);
        }
    }

    Value ledger() {
        char* json = nullptr;
        if (!ok(idelink_host_ledger(host_, &json), "idelink_host_ledger")) return Value::array();
        Value turns = mini_json::parse(json);
        idelink_string_free(json);
        return turns;
    }

    void turns() {
        Value all = ledger();
        if (all.items().empty()) say("no turns");
        for (const Value& turn : all.items()) {
            std::string line = "turn " + turn["id"].dump() + (turn["closed"].as_bool() ? " (ended):" : " (current):");
            for (const Value& file : turn["files"].items()) {
                std::uint64_t added = 0, removed = 0;
                for (const Value& hunk : file["hunks"].items()) {
                    added += hunk["newLines"].as_u64();
                    removed += hunk["oldLines"].as_u64();
                }
                const bool by_claude = file["changedBy"].as_string() == "claude";
                line += " " + relative(file["path"].as_string()) + " +" + std::to_string(added) + " -" +
                        std::to_string(removed) + (by_claude ? (file["reviewed"].as_bool() ? " reviewed" : " auto") : " seen on disk");
                if (file["baseline"]["kind"].as_string() == "missing") line += " created";
                else if (file["current"]["kind"].as_string() == "missing") line += " deleted";
                line += ";";
            }
            say(line);
        }
    }

    // Undoes a turn, a file (`path`) or one hunk (`hunk` from 1) of it, at the revision the
    // ledger holds now.
    void undo(std::uint64_t turn, const std::string& path, unsigned hunk) {
        Value target = Value::object();
        target.set("turn", Value::number(turn));
        if (path.empty()) {
            target.set("undo", Value::string("turn"));
        } else {
            target.set("path", Value::string(wire_spelling(path)));
            target.set("undo", Value::string(hunk == 0 ? "file" : "hunk"));
        }
        if (hunk > 0) {
            std::uint64_t revision = 0;
            for (const Value& t : ledger().items()) {
                if (t["id"].as_u64() != turn) continue;
                for (const Value& file : t["files"].items()) {
                    if (file["path"].as_string() == wire_spelling(path)) revision = file["revision"].as_u64();
                }
            }
            target.set("revision", Value::number(revision));
            target.set("hunk", Value::number(std::uint64_t{hunk - 1}));
        }
        if (idelink_host_ledger_undo(host_, target.dump().c_str()) != IDELINK_OK) {
            say("undo refused: " + std::string(idelink_last_error_message()));
        }
    }

    void tool_call(const Value& event) {
        const std::uint64_t id = event["id"].as_u64();
        const Value& request = event["request"];
        const std::string& tool = request["tool"].as_string();
        say("conn#" + event["conn"].dump() + " " + tool +
            (request.find("newFilePath") ? " " + relative(request["newFilePath"].as_string()) : "") +
            " (call#" + std::to_string(id) + ")");
        Value outcome = Value::object();
        if (tool == "openDiff") {
            const std::string& path = request["newFilePath"].as_string();
            regular_file::Result current = regular_file::read(request["oldFilePath"].as_string());
            show_diff(id, request["oldFilePath"].as_string(), current, request["newFileContents"].as_string());
            if (request["dirty"] == Value::boolean(true))
                say("! call#" + std::to_string(id) + ": the document has unsaved changes; the diff is against the file on disk");
            // A file that does not exist is read as empty, as the CLI reads it; one refused is unknown.
            const bool known = current.status != regular_file::Status::Refused;
            pending_[id] = PendingDiff{path, request["newFileContents"].as_string(), known,
                                       current.status == regular_file::Status::Read ? current.text : ""};
            if (policy_ == "ask") {
                const std::string n = std::to_string(id);
                say("accept or reject call#" + n + "? (type `accept " + n + " [TEXT]` or `reject " + n + "`)");
            } else {
                answer(id, policy_ == "accept", "");
            }
            return;
        }
        if (tool == "openFile") {
            if (auto refused = open(request["path"].as_string())) {
                outcome.set("outcome", Value::string("failed"));
                outcome.set("message", Value::string("cannot open the file: " + *refused));
            } else {
                outcome.set("outcome", Value::string("fileOpened"));
            }
        } else if (tool == "saveDocument") {
            outcome.set("outcome", Value::string("documentSaved"));
        } else {
            outcome.set("outcome", Value::string("failed"));
            outcome.set("message", Value::string("frame_editor does not run " + tool));
        }
        ok(idelink_host_handle_tool_outcome(host_, id, outcome.dump().c_str()), "idelink_host_handle_tool_outcome");
    }

    // A line diff: the common head and tail as context, the middle as removed and added; a
    // warning first when the text holds characters shown as markers.
    void show_diff(std::uint64_t id, const std::string& path, const regular_file::Result& current,
                   const std::string& proposed) {
        auto old_lines = split_lines(current.text);
        auto new_lines = split_lines(proposed);
        std::size_t head = 0;
        while (head < old_lines.size() && head < new_lines.size() && old_lines[head] == new_lines[head]) ++head;
        std::size_t tail = 0;
        while (tail < old_lines.size() - head && tail < new_lines.size() - head &&
               old_lines[old_lines.size() - 1 - tail] == new_lines[new_lines.size() - 1 - tail])
            ++tail;
        say("--- " + relative(path) + " (call#" + std::to_string(id) + ")");
        say("+++ " + relative(path) + " (proposed)");
        if (current.status == regular_file::Status::Refused)
            say("! the current text is not shown: " + current.error);
        inert_text::Findings found;
        inert_text::inert(current.text, &found);
        inert_text::inert(proposed, &found);
        if (found.any()) say(inert_text::warning(found));
        for (std::size_t i = 0; i < head; ++i) say(" " + old_lines[i]);
        for (std::size_t i = head; i < old_lines.size() - tail; ++i) say("-" + old_lines[i]);
        for (std::size_t i = head; i < new_lines.size() - tail; ++i) say("+" + new_lines[i]);
        for (std::size_t i = old_lines.size() - tail; i < old_lines.size(); ++i) say(" " + old_lines[i]);
    }

    // Answers the pending diff `id`, and only that one.
    void answer(std::uint64_t id, bool accept, const std::string& extra) {
        auto pending = pending_.find(id);
        if (pending == pending_.end()) {
            say("no diff call#" + std::to_string(id) + " to answer");
            return;
        }
        Value outcome = Value::object();
        if (accept) {
            std::string final_text = pending->second.proposed + (extra.empty() ? "" : extra + "\n");
            outcome.set("outcome", Value::string("diffSaved"));
            outcome.set("finalText", Value::string(final_text));
            // With the file's text, idelink refuses an accept that changes nothing (the CLI would
            // read it as a denial) and reports the exact bytes written in `fileReplaced`.
            if (pending->second.has_original) outcome.set("originalText", Value::string(pending->second.original));
        } else {
            outcome.set("outcome", Value::string("diffRejected"));
        }
        say(std::string(accept ? "accepted" : "rejected") + " call#" + std::to_string(id) + " " +
            relative(pending->second.path) + (extra.empty() ? "" : " with the edit " + extra));
        ok(idelink_host_handle_tool_outcome(host_, id, outcome.dump().c_str()), "idelink_host_handle_tool_outcome");
        pending_.erase(pending);
    }

    IdelinkHost* host_;
    std::string workspace_;
    std::string policy_;
    Console console_;
    static constexpr std::size_t kNone = static_cast<std::size_t>(-1);
    std::vector<Document> documents_;
    std::size_t active_ = kNone;
    Selection selection_;
    bool selected_ = false;
    // The snapshot's arrays, reused every frame.
    std::vector<IdelinkDocument> tabs_;
    std::vector<const char*> folders_;
    // The diffs waiting for the user, by call id.
    std::map<std::uint64_t, PendingDiff> pending_;
};

int usage() {
    std::cerr << "usage: frame_editor [--name NAME] [--lock-dir DIR] [--diff ask|accept|reject] "
                 "[--ledger] [--headless] WORKSPACE\n";
    return 2;
}

} // namespace

int main(int argc, char** argv) {
    std::string name = "frame_editor", lock_dir, policy = "ask", workspace;
    bool headless = false, ledger = false;
    for (int i = 1; i < argc; ++i) {
        std::string arg = argv[i];
        bool has_value = i + 1 < argc;
        if (arg == "--name" && has_value) name = argv[++i];
        else if (arg == "--lock-dir" && has_value) lock_dir = argv[++i];
        else if (arg == "--diff" && has_value) policy = argv[++i];
        else if (arg == "--headless") headless = true;
        else if (arg == "--ledger") ledger = true;
        else if (arg.rfind("--", 0) != 0 && workspace.empty()) workspace = arg;
        else return usage();
    }
    if (workspace.empty() || (policy != "ask" && policy != "accept" && policy != "reject")) return usage();

    Value config = Value::object();
    config.set("ideName", Value::string(name));
    Value folders = Value::array();
    folders.push(Value::string(workspace));
    config.set("workspaceFolders", folders);
    if (!lock_dir.empty()) {
        Value lock = Value::object();
        lock.set("dir", Value::string(lock_dir));
        config.set("lock", lock);
    }
    config.set("headless", Value::boolean(headless));
    if (ledger) {
        Value engine = Value::object();
        engine.set("ledger", Value::boolean(true));
        config.set("engine", engine);
    }

    IdelinkHost* host = nullptr;
    IdelinkStatus started = idelink_host_start(config.dump().c_str(), &host);
    if (started == IDELINK_ERROR_HEADLESS) {
        say(std::string("frame_editor: ") + idelink_last_error_message());
        return 0;
    }
    if (started != IDELINK_OK) {
        std::cerr << "frame_editor: idelink_host_start: " << idelink_last_error_message() << std::endl;
        return 1;
    }
    std::uint16_t port = 0;
    idelink_host_port(host, &port);
    say("frame_editor: serving " + workspace + " as \"" + name + "\" on 127.0.0.1:" + std::to_string(port));

    std::signal(SIGINT, on_signal);
    std::signal(SIGTERM, on_signal);
#ifdef _WIN32
    g_stopped = CreateEventW(nullptr, TRUE, FALSE, nullptr);
    SetConsoleCtrlHandler(on_console_event, TRUE);
#endif
    int status = 0;
    {
        Editor editor(host, workspace, policy);
        const auto frame_time = std::chrono::microseconds(16667);
        auto next_frame = std::chrono::steady_clock::now();
        while (!g_stop) {
            if (!editor.frame()) break;
            next_frame += frame_time;
            std::this_thread::sleep_until(next_frame);
        }
    }
    if (idelink_host_shutdown(host, 1000) != IDELINK_OK) status = 1;
    for (char* json = nullptr; idelink_host_next_event(host, &json) == IDELINK_OK && json;) {
        Value event = mini_json::parse(json);
        idelink_string_free(json);
        if (event["event"].as_string() == "closed") say("conn#" + event["conn"].dump() + " closed at shutdown");
    }
    idelink_host_free(host);
    say("frame_editor: stopped, lock removed");
#ifdef _WIN32
    if (g_stopped) SetEvent(g_stopped);
#endif
    return status;
}
