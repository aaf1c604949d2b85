// The explanation of a violation in plain sentences, built from the history.
//
// Contract: for each check that verdict.json marks "violated", a few sentences saying what
// happened, when (seconds on the true clock), and why as far as the history shows it: the
// witness's clients and their lock keys, leases, the faults that hit them, and what they did
// next. The mutex, resource and liveness checks get tailored sentences; any other check gets
// its summary and the instants and processes its witness names. Nothing is invented: a fact
// the history does not hold (a history without truth events) is left out, not guessed.
// Text only (no markup), so it serves the HTML report and the terminal alike.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "checker/history.h"

namespace lockstep {

struct CheckExplanation {
  std::string check;                   // the check's name
  std::vector<std::string> sentences;  // each a full sentence, ending with "."
};

// One per violated check, in verdict order; empty when nothing is violated.
std::vector<CheckExplanation> explain_checks(const History& history, const nlohmann::json& verdict);

// explain_checks as text: one paragraph per violated check, "check: sentence sentence ...",
// paragraphs separated by newlines. Empty when nothing is violated.
std::string explain_violation(const History& history, const nlohmann::json& verdict);

}  // namespace lockstep
