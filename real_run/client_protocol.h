// The external lock client protocol, version 1 (docs/external-clients.md): the lines lockstep
// writes to a client's stdin and the reading of the lines it writes back. Pure: no I/O, so
// that every way a line can be wrong is tested without a process.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "lockstep/kv/result.h"
#include "lockstep/kv/time.h"

namespace lockstep::real {

constexpr int kClientProtocolVersion = 1;

struct ClientHello {
  std::string client;                  // "client-0"
  std::vector<std::string> endpoints;  // host:port
  std::string key_prefix;
  std::string lock_name;               // starts with key_prefix
  std::vector<std::pair<std::string, std::int64_t>> options;  // the algorithm's options
  // How to connect to a cluster that asks for more than plain http (`--endpoints` with
  // `--cacert`/`--cert`/`--key`/`--user`). tls: the endpoints speak TLS; each file may be
  // empty (no CA file: the system's roots; no cert and key: no client certificate).
  bool tls = false;
  std::string ca_file, cert_file, key_file;
  std::string user, password;  // user empty: no authentication
};

// Requests, each one line ending in '\n'.
std::string hello_line(std::int64_t id, const ClientHello& hello);
std::string acquire_line(std::int64_t id, bool shared, Duration timeout);
std::string critical_section_line(std::int64_t id, bool write);
std::string release_line(std::int64_t id);

// lockstep's answer to a resource call: ok with the value read (reads), or fail with a reason.
std::string resource_answer_line(bool write, bool accepted, std::int64_t value,
                                 const std::string& reason);

enum class AnswerType { ok, fail, info };

// An answer to request `id`.
struct ClientAnswer {
  std::int64_t id = 0;
  AnswerType type = AnswerType::ok;
  std::optional<std::int64_t> protocol;  // hello
  std::optional<std::int64_t> token;     // acquire
  std::optional<std::string> key;        // acquire
  std::optional<std::int64_t> lease;     // acquire
  std::string reason;                    // fail, info
};

// A read or write of the protected resource, inside a critical section.
struct ResourceCall {
  bool write = false;
  std::optional<std::int64_t> token;
  std::int64_t value = 0;  // write
};

using ClientLine = std::variant<ClientAnswer, ResourceCall>;

// Reads one line (without its '\n'). An error says what is wrong with it, in words that follow
// "line N: " (invalid_argument).
Result<ClientLine> parse_client_line(const std::string& line);

// The byte offset of the first byte of `text` that is not part of valid UTF-8, or npos.
std::size_t first_invalid_utf8(const std::string& text);

// A client's line for a message: valid UTF-8 kept, any other byte and control characters as
// \xNN (a message and the verdict.json holding it must be valid UTF-8: a key "k\xff" once
// aborted the run when the verdict was written), cut after about `max_bytes` bytes with "...".
std::string printable_client_line(const std::string& line, std::size_t max_bytes = 200);

}  // namespace lockstep::real
