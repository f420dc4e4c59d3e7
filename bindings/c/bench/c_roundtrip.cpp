// The cost of one small tools/call round trip through the engine-level C API: the bytes of a
// masked `tools/call getWorkspaceFolders` frame in, then every output drained (the answer's
// outbound bytes taken and reported sent, the `toolServed` event's JSON text freed). Compare
// with bench/rust_roundtrip.rs, the same loop on the Rust API. Not a test: it prints numbers.
//
//   cmake -S bindings/c -B build-release -DCMAKE_BUILD_TYPE=Release
//   cmake --build build-release --target bench_c_roundtrip && build-release/bench_c_roundtrip [ROUNDS]
// Wall time is noisy on shared machines: `valgrind --tool=callgrind` at two ROUNDS values gives
// repeatable instructions per round trip (the difference over the difference in rounds).
#include "idelink.h"

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

namespace {

const char kToken[] = "00112233445566778899aabbccddeeff";

void must(IdelinkStatus status) {
    if (status != IDELINK_OK) {
        std::fprintf(stderr, "bench: %s\n", idelink_last_error_message());
        std::exit(1);
    }
}

std::vector<unsigned char> masked_text(const std::string& text) {
    const unsigned char mask[4] = {0x37, 0xfa, 0x21, 0x3d};
    std::vector<unsigned char> out{0x81};
    if (text.size() < 126) {
        out.push_back(static_cast<unsigned char>(0x80 | text.size()));
    } else {
        out.push_back(0x80 | 126);
        out.push_back(static_cast<unsigned char>(text.size() >> 8));
        out.push_back(static_cast<unsigned char>(text.size() & 0xff));
    }
    out.insert(out.end(), mask, mask + 4);
    for (std::size_t i = 0; i < text.size(); ++i) out.push_back(static_cast<unsigned char>(text[i]) ^ mask[i % 4]);
    return out;
}

// Drains the outputs; returns how many bytes were sent.
std::size_t drain(IdelinkEngine* engine) {
    std::size_t sent = 0;
    while (true) {
        IdelinkOutput out{};
        must(idelink_engine_poll_output(engine, &out));
        if (out.kind == IDELINK_OUTPUT_NONE) return sent;
        if (out.kind == IDELINK_OUTPUT_TRANSMIT) {
            const std::uint8_t* data = nullptr;
            std::size_t len = 0;
            must(idelink_engine_outbound(engine, out.conn, &data, &len));
            must(idelink_engine_handle_sent(engine, out.conn, len));
            sent += len;
        }
        idelink_string_free(out.event_json);
    }
}

} // namespace

int main(int argc, char** argv) {
    IdelinkEngine* engine = nullptr;
    must(idelink_engine_new("{\"port\":40000,\"readyDelayMs\":0,\"workspaceFolders\":[\"/p\"]}", kToken, &engine));
    std::uint64_t conn = 0;
    must(idelink_engine_handle_accept(engine, 0, &conn));
    std::string upgrade =
        "GET / HTTP/1.1\r\nHost: 127.0.0.1:40000\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n"
        "Sec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n"
        "Sec-WebSocket-Protocol: mcp\r\nX-Claude-Code-Ide-Authorization: " + std::string(kToken) + "\r\n\r\n";
    std::vector<unsigned char> opening(upgrade.begin(), upgrade.end());
    for (const char* message : {
             "{\"jsonrpc\":\"2.0\",\"id\":0,\"method\":\"initialize\",\"params\":{\"protocolVersion\":\"2025-11-25\","
             "\"capabilities\":{},\"clientInfo\":{\"name\":\"claude-code\",\"version\":\"bench\"}}}",
             "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}"}) {
        auto frame = masked_text(message);
        opening.insert(opening.end(), frame.begin(), frame.end());
    }
    must(idelink_engine_handle_bytes(engine, 0, conn, opening.data(), opening.size()));
    drain(engine);
    must(idelink_engine_handle_timeout(engine, 1));
    drain(engine);

    auto call = masked_text(
        "{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"tools/call\",\"params\":{\"name\":\"getWorkspaceFolders\",\"arguments\":{}}}");
    const int warmup = 10000, rounds = argc > 1 ? std::atoi(argv[1]) : 200000;
    std::size_t sent = 0;
    for (int i = 0; i < warmup; ++i) {
        must(idelink_engine_handle_bytes(engine, 2, conn, call.data(), call.size()));
        sent += drain(engine);
    }
    auto start = std::chrono::steady_clock::now();
    for (int i = 0; i < rounds; ++i) {
        must(idelink_engine_handle_bytes(engine, 2, conn, call.data(), call.size()));
        sent += drain(engine);
    }
    auto ns = std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - start).count();
    std::printf("C API: %.0f ns per tools/call round trip (%d rounds, %zu bytes answered each)\n",
                ns / rounds, rounds, sent / (warmup + rounds));
    idelink_engine_free(engine);
    return 0;
}
