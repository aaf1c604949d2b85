#include "lockstep/real_run/client_protocol.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdio>

namespace lockstep::real {

namespace {

std::string line_of(const nlohmann::json& j) { return j.dump() + "\n"; }

Error bad(const std::string& what) { return Error(ErrorCode::invalid_argument, what); }

// Reads an optional integer field; an error names it when it is there but no integer.
Result<std::optional<std::int64_t>> integer_field(const nlohmann::json& j, const char* name) {
  auto it = j.find(name);
  if (it == j.end() || it->is_null()) return std::optional<std::int64_t>{};
  if (!it->is_number_integer()) return bad(std::string("\"") + name + "\" must be an integer");
  return std::optional<std::int64_t>{it->get<std::int64_t>()};
}

Result<std::optional<std::string>> string_field(const nlohmann::json& j, const char* name) {
  auto it = j.find(name);
  if (it == j.end() || it->is_null()) return std::optional<std::string>{};
  if (!it->is_string()) return bad(std::string("\"") + name + "\" must be a string");
  return std::optional<std::string>{it->get<std::string>()};
}

Result<ClientLine> parse_answer(const nlohmann::json& j) {
  auto id = integer_field(j, "id");
  if (!id) return id.error();
  if (!id.value() || *id.value() <= 0) return bad("\"id\" must be a positive integer");
  auto type = string_field(j, "type");
  if (!type) return type.error();
  if (!type.value()) return bad("an answer needs \"type\" (ok, fail or info)");
  ClientAnswer a;
  a.id = *id.value();
  const std::string& t = *type.value();
  if (t == "ok") {
    a.type = AnswerType::ok;
  } else if (t == "fail") {
    a.type = AnswerType::fail;
  } else if (t == "info") {
    a.type = AnswerType::info;
  } else {
    return bad("unknown \"type\" \"" + t + "\" (expected ok, fail or info)");
  }
  auto protocol = integer_field(j, "protocol");
  auto token = integer_field(j, "token");
  auto lease = integer_field(j, "lease");
  auto key = string_field(j, "key");
  auto reason = string_field(j, "reason");
  if (!protocol) return protocol.error();
  if (!token) return token.error();
  if (!lease) return lease.error();
  if (!key) return key.error();
  if (!reason) return reason.error();
  a.protocol = protocol.value();
  a.token = token.value();
  a.lease = lease.value();
  a.key = key.value();
  a.reason = reason.value().value_or("");
  return ClientLine{a};
}

Result<ClientLine> parse_call(const nlohmann::json& j) {
  auto call = string_field(j, "call");
  if (!call) return call.error();
  ResourceCall c;
  if (*call.value() == "read") {
    c.write = false;
  } else if (*call.value() == "write") {
    c.write = true;
  } else {
    return bad("unknown \"call\" \"" + *call.value() + "\" (expected read or write)");
  }
  auto token = integer_field(j, "token");
  if (!token) return token.error();
  c.token = token.value();
  if (c.write) {
    auto value = integer_field(j, "value");
    if (!value) return value.error();
    if (!value.value()) return bad("a write needs \"value\" (an integer)");
    c.value = *value.value();
  }
  return ClientLine{c};
}

}  // namespace

std::string hello_line(std::int64_t id, const ClientHello& hello) {
  nlohmann::json options = nlohmann::json::object();
  for (const auto& [name, value] : hello.options) options[name] = value;
  nlohmann::json line = {{"id", id},
                         {"op", "hello"},
                         {"protocol", kClientProtocolVersion},
                         {"client", hello.client},
                         {"endpoints", hello.endpoints},
                         {"key_prefix", hello.key_prefix},
                         {"lock_name", hello.lock_name},
                         {"options", options}};
  // Present only when the cluster asks for them, so that a plain run's hello stays as it was.
  if (hello.tls) {
    nlohmann::json tls = nlohmann::json::object();
    if (!hello.ca_file.empty()) tls["ca_file"] = hello.ca_file;
    if (!hello.cert_file.empty()) tls["cert_file"] = hello.cert_file;
    if (!hello.key_file.empty()) tls["key_file"] = hello.key_file;
    line["tls"] = tls;
  }
  if (!hello.user.empty()) line["user"] = {{"name", hello.user}, {"password", hello.password}};
  return line_of(line);
}

std::string acquire_line(std::int64_t id, bool shared, Duration timeout) {
  return line_of({{"id", id},
                  {"op", "acquire"},
                  {"mode", shared ? "shared" : "exclusive"},
                  {"timeout_ms", std::chrono::duration_cast<std::chrono::milliseconds>(timeout).count()}});
}

std::string critical_section_line(std::int64_t id, bool write) {
  return line_of({{"id", id}, {"op", "critical_section"}, {"write", write}});
}

std::string release_line(std::int64_t id) { return line_of({{"id", id}, {"op", "release"}}); }

std::string resource_answer_line(bool write, bool accepted, std::int64_t value,
                                 const std::string& reason) {
  nlohmann::json j = {{"call", write ? "write" : "read"}, {"type", accepted ? "ok" : "fail"}};
  if (!accepted) {
    j["reason"] = reason;
  } else if (!write) {
    j["value"] = value;
  }
  return line_of(j);
}

namespace {

// The length of the valid UTF-8 sequence at `at` (1 to 4), or 0 when the bytes there are none
// (a stray continuation byte, an overlong form, a surrogate, past U+10FFFF, or cut short).
std::size_t utf8_sequence(const std::string& text, std::size_t at) {
  const auto byte = [&](std::size_t i) { return static_cast<unsigned char>(text[i]); };
  const unsigned char lead = byte(at);
  if (lead < 0x80) return 1;
  std::size_t length = 0;
  unsigned char low = 0x80, high = 0xbf;  // the allowed range of the second byte
  if (lead >= 0xc2 && lead <= 0xdf) {
    length = 2;
  } else if (lead >= 0xe0 && lead <= 0xef) {
    length = 3;
    if (lead == 0xe0) low = 0xa0;   // overlong
    if (lead == 0xed) high = 0x9f;  // surrogates
  } else if (lead >= 0xf0 && lead <= 0xf4) {
    length = 4;
    if (lead == 0xf0) low = 0x90;   // overlong
    if (lead == 0xf4) high = 0x8f;  // past U+10FFFF
  } else {
    return 0;
  }
  if (at + length > text.size()) return 0;
  if (byte(at + 1) < low || byte(at + 1) > high) return 0;
  for (std::size_t i = 2; i < length; ++i)
    if (byte(at + i) < 0x80 || byte(at + i) > 0xbf) return 0;
  return length;
}

// The JSON field whose text holds byte `at` of `line`, found by scanning the line's strings:
// a string followed by ':' is a field name, the others are values of the last one named.
// Empty when the byte is outside every string or no field is named before it.
std::string field_at(const std::string& line, std::size_t at) {
  std::string last_key;
  for (std::size_t i = 0; i < line.size(); ++i) {
    if (line[i] != '"') continue;
    const std::size_t start = i;
    for (++i; i < line.size() && line[i] != '"'; ++i)
      if (line[i] == '\\') ++i;
    std::size_t next = i + 1;
    while (next < line.size() && (line[next] == ' ' || line[next] == '\t')) ++next;
    const bool is_key = next < line.size() && line[next] == ':';
    const std::string text = line.substr(start + 1, std::min(i, line.size()) - start - 1);
    if (at > start && at < i) return is_key ? text : last_key;
    if (is_key) last_key = text;
  }
  return {};
}

}  // namespace

std::size_t first_invalid_utf8(const std::string& text) {
  for (std::size_t i = 0; i < text.size();) {
    const std::size_t n = utf8_sequence(text, i);
    if (n == 0) return i;
    i += n;
  }
  return std::string::npos;
}

std::string printable_client_line(const std::string& line, std::size_t max_bytes) {
  std::string out;
  for (std::size_t i = 0; i < line.size();) {
    if (out.size() >= max_bytes) return out + "...";
    const std::size_t n = utf8_sequence(line, i);
    const auto c = static_cast<unsigned char>(line[i]);
    if (n == 0 || c < 0x20 || c == 0x7f) {
      char buf[5];
      std::snprintf(buf, sizeof buf, "\\x%02x", c);
      out += buf;
      ++i;
    } else {
      out.append(line, i, n);
      i += n;
    }
  }
  return out;
}

Result<ClientLine> parse_client_line(const std::string& line) {
  // JSON is UTF-8: a line that is not is refused by what it is, naming the field, instead of
  // "not a JSON object" (and its bytes never reach a JSON file lockstep writes).
  if (const std::size_t bad_at = first_invalid_utf8(line); bad_at != std::string::npos) {
    char byte[8];
    std::snprintf(byte, sizeof byte, "0x%02x", static_cast<unsigned char>(line[bad_at]));
    const std::string field = field_at(line, bad_at);
    return bad((field.empty() ? std::string() : "\"" + printable_client_line(field, 60) + "\": ") +
               "not valid UTF-8 (byte " + byte + " at byte " + std::to_string(bad_at + 1) +
               " of the line; JSON text is UTF-8: send other bytes as \\u escapes)");
  }
  nlohmann::json j = nlohmann::json::parse(line, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded() || !j.is_object()) return bad("not a JSON object");
  const bool has_id = j.contains("id"), has_call = j.contains("call");
  if (has_id && has_call) return bad("a line is an answer (\"id\") or a resource call (\"call\"), not both");
  if (has_call) return parse_call(j);
  if (has_id) return parse_answer(j);
  return bad("neither an answer (\"id\") nor a resource call (\"call\")");
}

}  // namespace lockstep::real
