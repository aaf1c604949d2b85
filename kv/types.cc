#include "lockstep/kv/types.h"

#include <algorithm>
#include <cstdio>

namespace lockstep {

std::string prefix_range_end(const std::string& prefix) {
  std::string end = prefix;
  for (auto i = end.size(); i > 0; --i) {
    auto& c = reinterpret_cast<unsigned char&>(end[i - 1]);
    if (c < 0xff) {
      ++c;
      end.resize(i);
      return end;
    }
  }
  // Every byte is 0xff (or the prefix is empty): select every key (etcd's "\0").
  return std::string(1, '\0');
}

std::string escape_bytes(const std::string& bytes) {
  // Nearly every key and value is printable text with no backslash: a plain copy, not a
  // character-by-character append (every recorded call and key change escapes its key).
  const auto plain = [](unsigned char c) { return c != '\\' && c >= 0x20 && c < 0x7f; };
  if (std::all_of(bytes.begin(), bytes.end(), plain)) return bytes;
  std::string out;
  out.reserve(bytes.size());
  for (unsigned char c : bytes) {
    if (c == '\\') {
      out += "\\\\";
    } else if (c >= 0x20 && c < 0x7f) {
      out.push_back(static_cast<char>(c));
    } else {
      char buf[5];
      std::snprintf(buf, sizeof buf, "\\x%02x", c);
      out += buf;
    }
  }
  return out;
}

std::optional<std::string> unescape_bytes(const std::string& text) {
  auto hex = [](char c) -> int {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
  };
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] != '\\') {
      out.push_back(text[i]);
    } else if (i + 1 < text.size() && text[i + 1] == '\\') {
      out.push_back('\\');
      i += 1;
    } else if (i + 3 < text.size() && text[i + 1] == 'x' && hex(text[i + 2]) >= 0 &&
               hex(text[i + 3]) >= 0) {
      out.push_back(static_cast<char>(hex(text[i + 2]) * 16 + hex(text[i + 3])));
      i += 3;
    } else {
      return std::nullopt;
    }
  }
  return out;
}

Compare Compare::version_of(std::string key, CompareResult r, std::int64_t v) {
  Compare c;
  c.key = std::move(key);
  c.result = r;
  c.target = CompareTarget::version;
  c.version = v;
  return c;
}
Compare Compare::create_revision_of(std::string key, CompareResult r, Revision rev) {
  Compare c;
  c.key = std::move(key);
  c.result = r;
  c.target = CompareTarget::create;
  c.create_revision = rev;
  return c;
}
Compare Compare::mod_revision_of(std::string key, CompareResult r, Revision rev) {
  Compare c;
  c.key = std::move(key);
  c.result = r;
  c.target = CompareTarget::mod;
  c.mod_revision = rev;
  return c;
}
Compare Compare::value_of(std::string key, CompareResult r, std::string value) {
  Compare c;
  c.key = std::move(key);
  c.result = r;
  c.target = CompareTarget::value;
  c.value = std::move(value);
  return c;
}
Compare Compare::lease_of(std::string key, CompareResult r, LeaseId lease) {
  Compare c;
  c.key = std::move(key);
  c.result = r;
  c.target = CompareTarget::lease;
  c.lease = lease;
  return c;
}

}  // namespace lockstep
