// The HTML report of one run: one self-contained static page.
//
// Contract: a pure function of the run's files (the history, verdict.json and scenario.json
// as parsed JSON; a null scenario for a real etcd run, whose verdict names its backend). The page embeds everything it needs (inline CSS, inline script, the
// timeline's data as JSON) and references no URL, so it opens from disk, offline, without
// lockstep installed. Top to bottom: the verdict in words, every check of verdict.json with its
// status, summary, figures and witness, the replay command, the timeline (drawn by the inline
// script; see docs/report.md), the explanation of each violation, the faults, and the run's
// settings. The first violation's highlight in the timeline has id "violation"; the script
// sets body[data-ready] to "ok" once drawn, or "error" (with the message in #script-errors).
// A timeline too large to draw is aggregated (reports/timeline_aggregate.h).
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "lockstep/checker/history.h"

namespace lockstep::reports {

std::string render_report_html(const History& history, const nlohmann::json& verdict,
                               const nlohmann::json& scenario);

}  // namespace lockstep::reports
