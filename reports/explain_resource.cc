// The resource check's explanation: which acknowledged update was lost (or which stale token
// got through), who believed it held the lock then, what etcd held, and the faults in play.
#include "reports/explain_parts.h"
#include "reports/report_text.h"

namespace lockstep::reports {

namespace {

std::string write_words(const nlohmann::json& w) {
  std::string s = w.value("client", std::string("a client")) + "'s write of " +
                  (w.contains("value") ? w["value"].dump() : std::string("?"));
  if (w.contains("base")) s += " computed from " + w["base"].dump();
  if (w.contains("token")) s += " (token " + w["token"].dump() + ")";
  return s;
}

// Who believed it held the lock, and whose key etcd held, at `at_ns`.
std::string holders_at(const RunFacts& facts, std::int64_t at_ns) {
  std::vector<std::string> believers;
  for (const auto& h : facts.holdings())
    if (h.start_ns <= at_ns && at_ns <= h.end_ns) believers.push_back(h.process);
  std::string s = "At " + format_seconds(at_ns) + " ";
  s += believers.empty() ? "no client believed it held the lock"
                         : join_words(believers) + (believers.size() == 1 ? " believed it held" : " believed they held") +
                               " the lock";
  if (!facts.truth().keys.empty()) {
    std::vector<std::string> owners;
    for (const KeyLifetime* k : facts.keys_at(at_ns))
      owners.push_back((k->owner.empty() ? std::string("nobody known") : k->owner) + " (" + k->key +
                       ", revision " + std::to_string(k->create_revision) + ")");
    s += owners.empty() ? "; no lock key existed in etcd" : "; etcd held the lock key of " + join_words(owners);
  }
  return s + ".";
}

void faults_near(const RunFacts& facts, const std::string& client, std::int64_t at_ns,
                 std::vector<std::string>& out) {
  auto hit = facts.faults_hitting(client, at_ns, at_ns);
  for (const FaultBand* f : facts.faults_hitting("resource", at_ns, at_ns))
    if (!f->hits(client)) hit.push_back(f);
  if (!hit.empty()) out.push_back("Then " + fault_clauses(hit) + ".");
}

}  // namespace

std::vector<std::string> explain_resource(const RunFacts& facts, const nlohmann::json& check) {
  const nlohmann::json w = check.value("witness", nlohmann::json::object());
  if (!w.is_object()) return {};
  std::vector<std::string> out;
  if (w.contains("lost") && w.contains("overwritten_by") && w["lost"].is_object() &&
      w["overwritten_by"].is_object()) {
    const auto& lost = w["lost"];
    const auto& by = w["overwritten_by"];
    const HistoryEvent* lost_at = facts.event(int_of(lost, "event", -1));
    const HistoryEvent* by_at = facts.event(int_of(by, "event", -1));
    std::string s = write_words(lost) + " was applied";
    if (lost_at) s += " at " + format_seconds(lost_at->true_ns);
    if (lost.contains("order")) s += " as update " + lost["order"].dump();
    s += " and acknowledged to " + w.value("lost_acknowledged_by", lost.value("client", std::string("its client"))) + ".";
    out.push_back(s);
    s = "Then the resource applied " + write_words(by);
    if (by_at) s += " at " + format_seconds(by_at->true_ns);
    if (by.contains("order")) s += " as update " + by["order"].dump();
    s += ", overwriting it";
    if (by.value("client", "") == lost.value("client", "") && by.value("base", nlohmann::json()) == lost.value("base", nlohmann::json()) &&
        by.value("value", nlohmann::json()) == lost.value("value", nlohmann::json()))
      s += ": the same write was applied a second time";
    else
      s += ": its writer had read the resource before update " + lost.value("order", nlohmann::json()).dump();
    out.push_back(s + ".");
    if (by_at) {
      out.push_back(holders_at(facts, by_at->true_ns));
      faults_near(facts, by.value("client", ""), by_at->true_ns, out);
    }
    return out;
  }
  if (w.contains("write") && w["write"].is_object()) {
    const auto& write = w["write"];
    const HistoryEvent* at = facts.event(int_of(write, "event", -1));
    std::string s = "The resource accepted " + write_words(write);
    if (at) s += " at " + format_seconds(at->true_ns);
    if (w.contains("highest_token_before"))
      s += " although it had already accepted token " + w["highest_token_before"].dump() +
           ": tokens went backwards";
    out.push_back(s + ".");
    if (at) {
      out.push_back(holders_at(facts, at->true_ns));
      faults_near(facts, write.value("client", ""), at->true_ns, out);
    }
    return out;
  }
  return {};
}

}  // namespace lockstep::reports
