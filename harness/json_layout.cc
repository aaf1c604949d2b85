#include "lockstep/harness/json_layout.h"

namespace lockstep {

namespace {

// One line: {"a": 1, "b": [1, 2]}.
void write_inline(const nlohmann::ordered_json& v, std::string& out) {
  if (v.is_object()) {
    out += '{';
    bool first = true;
    for (auto it = v.begin(); it != v.end(); ++it) {
      out += first ? "" : ", ";
      first = false;
      out += nlohmann::ordered_json(it.key()).dump();
      out += ": ";
      write_inline(it.value(), out);
    }
    out += '}';
  } else if (v.is_array()) {
    out += '[';
    for (std::size_t i = 0; i < v.size(); ++i) {
      out += i ? ", " : "";
      write_inline(v[i], out);
    }
    out += ']';
  } else {
    out += v.dump();
  }
}

void write_block(const nlohmann::ordered_json& v, int indent, std::string& out) {
  const std::string pad(static_cast<std::size_t>(indent + 2), ' ');
  if (v.is_object() && !v.empty()) {
    out += "{\n";
    std::size_t i = 0;
    for (auto it = v.begin(); it != v.end(); ++it, ++i) {
      out += pad + nlohmann::ordered_json(it.key()).dump() + ": ";
      write_block(it.value(), indent + 2, out);
      out += i + 1 < v.size() ? ",\n" : "\n";
    }
    out += std::string(static_cast<std::size_t>(indent), ' ') + "}";
  } else if (v.is_array() && !v.empty() && (v[0].is_object() || v[0].is_array())) {
    // Structured elements: one per line.
    out += "[\n";
    for (std::size_t i = 0; i < v.size(); ++i) {
      out += pad;
      write_inline(v[i], out);
      out += i + 1 < v.size() ? ",\n" : "\n";
    }
    out += std::string(static_cast<std::size_t>(indent), ' ') + "]";
  } else {
    write_inline(v, out);
  }
}

}  // namespace

std::string readable_json_text(const nlohmann::ordered_json& value) {
  std::string out;
  write_block(value, 0, out);
  out += '\n';
  return out;
}

}  // namespace lockstep
