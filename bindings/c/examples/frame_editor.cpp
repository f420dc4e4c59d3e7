// frame_editor: a small C++17 "editor" that embeds idelink the way a game editor would.
//
// Every frame (60 per second) it reads its console, publishes its active document and
// selection to idelink when they changed, polls the host with a timeout of 0, and handles
// the events: an `openDiff` is shown in the console and accepted or rejected (by --diff, or
// by typing `accept` / `reject`). On exit (`quit`, end of a SIGINT/SIGTERM) it shuts the host
// down, which closes the clients and removes its lock file.
//
//   frame_editor [--name NAME] [--lock-dir DIR] [--diff ask|accept|reject] [--headless] WORKSPACE
//
// Console commands (one per line on stdin):
//   open PATH                 make PATH (absolute, or relative to WORKSPACE) the active document
//   select LINE FROM TO       select characters FROM..TO of LINE (0-based) in the active document
//   accept [TEXT]             accept the diff on screen; with TEXT, the user first appended the
//                             line TEXT to the proposed contents in the diff view
//   reject                    reject the diff on screen
//   quit                      shut down and exit
#include "idelink.h"
#include "mini_json.hpp"

#include <atomic>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <deque>
#include <fstream>
#include <iostream>
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

void say(const std::string& line) {
    std::cout << line << std::endl; // flushed: tests read the console line by line
}

std::string read_file(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
}

std::vector<std::string> split_lines(const std::string& text) {
    std::vector<std::string> lines;
    std::string line;
    std::istringstream in(text);
    while (std::getline(in, line)) lines.push_back(line);
    return lines;
}

// What the editor shows: the active document and its selection.
struct EditorView {
    std::string path;
    std::string contents;
    unsigned line = 0, from = 0, to = 0;
    bool has_selection = false;
    bool operator==(const EditorView& o) const {
        return path == o.path && line == o.line && from == o.from && to == o.to &&
               has_selection == o.has_selection;
    }
};

// A diff the user is looking at.
struct PendingDiff {
    std::uint64_t id = 0;
    std::string proposed;
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

    std::string absolute(const std::string& path) const {
        return !path.empty() && path[0] == '/' ? path : workspace_ + "/" + path;
    }
    std::string relative(const std::string& path) const {
        const std::string prefix = workspace_ + "/";
        return path.compare(0, prefix.size(), prefix) == 0 ? path.substr(prefix.size()) : path;
    }

    bool command(const std::string& line) {
        std::istringstream in(line);
        std::string verb;
        in >> verb;
        if (verb == "open") {
            std::string path;
            in >> path;
            view_.path = absolute(path);
            view_.contents = read_file(view_.path);
            view_.has_selection = false;
        } else if (verb == "select") {
            in >> view_.line >> view_.from >> view_.to;
            view_.has_selection = !view_.path.empty();
        } else if (verb == "accept" || verb == "reject") {
            std::string extra;
            std::getline(in >> std::ws, extra);
            answer(verb == "accept", extra);
        } else if (verb == "quit") {
            return false;
        } else if (!verb.empty()) {
            say("unknown command: " + line);
        }
        return true;
    }

    // Sends the editor events for what changed since the last frame.
    void publish() {
        if (view_ == published_) return;
        Value event = Value::object();
        if (view_.has_selection) {
            auto lines = split_lines(view_.contents);
            std::string text;
            if (view_.line < lines.size() && view_.from <= view_.to && view_.to <= lines[view_.line].size())
                text = lines[view_.line].substr(view_.from, view_.to - view_.from);
            auto position = [](unsigned line, unsigned character) {
                Value p = Value::object();
                p.set("line", Value::number(line));
                p.set("character", Value::number(character));
                return p;
            };
            Value selection = Value::object();
            selection.set("start", position(view_.line, view_.from));
            selection.set("end", position(view_.line, view_.to));
            event.set("type", Value::string("selectionChanged"));
            event.set("path", Value::string(view_.path));
            event.set("text", Value::string(text));
            event.set("selection", selection);
            say("published selection " + relative(view_.path) + ":" + std::to_string(view_.line) + " " +
                std::to_string(view_.from) + "-" + std::to_string(view_.to));
        } else {
            event.set("type", Value::string("documentActivated"));
            event.set("path", Value::string(view_.path));
            say("published active document " + relative(view_.path));
        }
        if (ok(idelink_host_editor_event(host_, event.dump().c_str()), "idelink_host_editor_event"))
            published_ = view_;
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
        } else if (kind == "toolCallCancelled") {
            say("call#" + event["id"].dump() + " cancelled: " + event["reason"].as_string());
            if (pending_ && pending_->id == event["id"].as_u64()) pending_.reset();
        } else if (kind == "closed") {
            say(conn + " closed: " + event["reason"]["kind"].as_string());
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
            show_diff(request["oldFilePath"].as_string(), request["newFileContents"].as_string());
            pending_ = PendingDiff{id, request["newFileContents"].as_string()};
            if (policy_ == "ask") say("accept or reject? (type `accept [TEXT]` or `reject`)");
            else answer(policy_ == "accept", "");
            return;
        }
        if (tool == "openFile") {
            view_.path = request["path"].as_string();
            view_.contents = read_file(view_.path);
            view_.has_selection = false;
            outcome.set("outcome", Value::string("fileOpened"));
        } else if (tool == "saveDocument") {
            outcome.set("outcome", Value::string("documentSaved"));
        } else {
            outcome.set("outcome", Value::string("failed"));
            outcome.set("message", Value::string("frame_editor does not run " + tool));
        }
        ok(idelink_host_tool_outcome(host_, id, outcome.dump().c_str()), "idelink_host_tool_outcome");
    }

    // A line diff: the common head and tail as context, the middle as removed and added.
    void show_diff(const std::string& path, const std::string& proposed) {
        auto old_lines = split_lines(read_file(path));
        auto new_lines = split_lines(proposed);
        std::size_t head = 0;
        while (head < old_lines.size() && head < new_lines.size() && old_lines[head] == new_lines[head]) ++head;
        std::size_t tail = 0;
        while (tail < old_lines.size() - head && tail < new_lines.size() - head &&
               old_lines[old_lines.size() - 1 - tail] == new_lines[new_lines.size() - 1 - tail])
            ++tail;
        say("--- " + relative(path));
        say("+++ " + relative(path) + " (proposed)");
        for (std::size_t i = 0; i < head; ++i) say(" " + old_lines[i]);
        for (std::size_t i = head; i < old_lines.size() - tail; ++i) say("-" + old_lines[i]);
        for (std::size_t i = head; i < new_lines.size() - tail; ++i) say("+" + new_lines[i]);
        for (std::size_t i = old_lines.size() - tail; i < old_lines.size(); ++i) say(" " + old_lines[i]);
    }

    void answer(bool accept, const std::string& extra) {
        if (!pending_) {
            say("no diff to answer");
            return;
        }
        Value outcome = Value::object();
        if (accept) {
            std::string final_text = pending_->proposed + (extra.empty() ? "" : extra + "\n");
            outcome.set("outcome", Value::string("diffSaved"));
            outcome.set("finalText", Value::string(final_text));
        } else {
            outcome.set("outcome", Value::string("diffRejected"));
        }
        say(std::string(accept ? "accepted" : "rejected") + " call#" + std::to_string(pending_->id) +
            (extra.empty() ? "" : " with the edit " + extra));
        ok(idelink_host_tool_outcome(host_, pending_->id, outcome.dump().c_str()), "idelink_host_tool_outcome");
        pending_.reset();
    }

    IdelinkHost* host_;
    std::string workspace_;
    std::string policy_;
    Console console_;
    EditorView view_, published_;
    std::optional<PendingDiff> pending_;
};

int usage() {
    std::cerr << "usage: frame_editor [--name NAME] [--lock-dir DIR] [--diff ask|accept|reject] "
                 "[--headless] WORKSPACE\n";
    return 2;
}

} // namespace

int main(int argc, char** argv) {
    std::string name = "frame_editor", lock_dir, policy = "ask", workspace;
    bool headless = false;
    for (int i = 1; i < argc; ++i) {
        std::string arg = argv[i];
        bool has_value = i + 1 < argc;
        if (arg == "--name" && has_value) name = argv[++i];
        else if (arg == "--lock-dir" && has_value) lock_dir = argv[++i];
        else if (arg == "--diff" && has_value) policy = argv[++i];
        else if (arg == "--headless") headless = true;
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
    return status;
}
