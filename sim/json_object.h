// JsonObject: a JSON object built member by member, each added at the end of its map.
//
// Contract: add() members in key order (std::map's byte order) and each goes in with one
// comparison, against the last member; a member out of order still lands in its place, only
// slower. take() hands over the object as a nlohmann::json.
// Why: nlohmann::json's operator[] builds a key string, searches the object and assigns a
// temporary for every member: about 500 instructions each, and a recorded run adds several
// members per KV call (kv-send, kv-end, key-put). Added in order, a member costs a third of it.
#pragma once

#include <string_view>
#include <utility>

#include <nlohmann/json.hpp>

namespace lockstep::sim {

class JsonObject {
 public:
  template <typename V>
  JsonObject& add(std::string_view key, V&& value) {
    members_.emplace_hint(members_.end(), key, std::forward<V>(value));
    return *this;
  }
  nlohmann::json take() && { return nlohmann::json(std::move(members_)); }

 private:
  nlohmann::json::object_t members_;
};

}  // namespace lockstep::sim
