#include <catch2/catch.hpp>

#include "lockstep/kv/types.h"

namespace lockstep {
namespace {

TEST_CASE("escape_bytes and unescape_bytes are inverses on every byte") {
  std::string all;
  for (int c = 0; c < 256; ++c) all.push_back(static_cast<char>(c));
  const std::string escaped = escape_bytes(all);
  for (unsigned char c : escaped) CHECK((c >= 0x20 && c < 0x7f));
  CHECK(unescape_bytes(escaped) == all);
  CHECK(escape_bytes("lock/\\x") == "lock/\\\\x");
  CHECK(unescape_bytes("\\xFF\\x0a") == std::string("\xff\n"));
}

TEST_CASE("unescape_bytes refuses a backslash that escape_bytes never writes") {
  CHECK_FALSE(unescape_bytes("lock\\n").has_value());
  CHECK_FALSE(unescape_bytes("lock\\").has_value());
  CHECK_FALSE(unescape_bytes("\\x4").has_value());
  CHECK_FALSE(unescape_bytes("\\xg0").has_value());
}

}  // namespace
}  // namespace lockstep
