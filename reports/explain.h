// The explanation of a violation in plain sentences, built from the history.
//
// Contract: for each check that verdict.json marks "violated", a few sentences saying what
// happened, when (seconds on the true clock), and why as far as the history shows it: the
// witness's clients and their lock keys, leases, the faults that hit them, and what they did
// next. The mutex, resource and liveness checks get tailored sentences; any other check gets
// its summary and the instants and processes its witness names. Nothing is invented: a fact
// the history does not hold (a history without truth events) is left out, not guessed.
// Text only (no markup), so it serves the HTML report and the terminal alike.
//
// The mutex explanation follows the causal chain the simulator records (docs/history-format.md,
// "Causes"): from the second grant back to what removed the first holder's protection (a lease
// expiry that committed, and why no keep-alive renewed it; a request that deleted or overwrote
// the key, who sent it when and what held it), or to the grantee's own lost key. `cause` says
// the same for machines and tests.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "lockstep/checker/history.h"

namespace lockstep::reports {

// A span of true time a sentence is about (the report links the sentence to it on the
// timeline).
struct TimeSpan {
  std::int64_t from_ns = 0;
  std::int64_t to_ns = 0;
};

struct CheckExplanation {
  std::string check;                   // the check's name
  std::vector<std::string> sentences;  // each a full sentence, ending with "."
  // Per sentence (same length as `sentences`): the span of the request, lease or fault it
  // names, if any.
  std::vector<std::optional<TimeSpan>> spans;
  // How many of the first sentences form the causal chain: from the violation back to its
  // cause (the rest say what happened next).
  std::size_t chain_length = 0;
  // The cause found, or null: {"class": ..., and what it names: "process", "key", "lease",
  // "request" {client, call, request, member, sent_ns, abandoned_ns?}, "leader", "faults"
  // [the start event of each fault named as a cause]}. Classes: see reports/causes.h.
  nlohmann::json cause;
};

// One per violated check, in verdict order; empty when nothing is violated.
std::vector<CheckExplanation> explain_checks(const History& history, const nlohmann::json& verdict);

// explain_checks as text: one paragraph per violated check, "check: sentence sentence ...",
// paragraphs separated by newlines. Empty when nothing is violated.
std::string explain_violation(const History& history, const nlohmann::json& verdict);

}  // namespace lockstep::reports
