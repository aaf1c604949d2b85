#include "lockstep/cli/demo_index.h"

#include <fmt/core.h>

#include "lockstep/harness/output_file.h"

#include <cctype>
#include <fstream>
#include <system_error>

#include "lockstep/reports/html_text.h"

namespace lockstep::cli {

namespace {

std::string escape(const std::string& text) { return reports::html_escape(text); }

// A path segment in a relative link: algorithm names are [a-z0-9.-], but never trust that.
std::string url_segment(const std::string& text) {
  std::string out;
  for (unsigned char c : text) {
    if (std::isalnum(c) || c == '-' || c == '.' || c == '_') out += static_cast<char>(c);
    else out += fmt::format("%{:02X}", c);
  }
  return out;
}

// The first `n` sentences of `text` (sentences end with ". "), with " ..." when cut.
std::string first_sentences(const std::string& text, int n) {
  std::size_t at = 0;
  for (int i = 0; i < n; ++i) {
    at = text.find(". ", at);
    if (at == std::string::npos) return text;
    at += 1;
  }
  return text.substr(0, at) + " ...";
}

// Lets a long path wrap after its slashes only.
std::string breakable(const std::string& escaped) {
  std::string out;
  for (char c : escaped) out += c == '/' ? std::string("/<wbr>") : std::string(1, c);
  return out;
}

constexpr const char* kStyle = R"(
body { font: 14px/1.45 system-ui, -apple-system, "Segoe UI", sans-serif; margin: 0 24px 40px; color: #1a202c; background: #fff; }
h1 { font-size: 22px; margin: 18px 0 4px; }
.note { font-size: 12.5px; color: #4a5568; }
table { border-collapse: collapse; margin-top: 14px; width: 100%; }
th, td { border-bottom: 1px solid #e2e8f0; padding: 6px 8px; text-align: left; vertical-align: top; }
th { background: #f7fafc; font-weight: 600; }
td.algorithm { white-space: nowrap; font-family: ui-monospace, monospace; font-weight: 600; }
.verdict { display: inline-block; padding: 1px 8px; border-radius: 10px; font-weight: 600; white-space: nowrap; }
.status-ok { background: #c6f6d5; color: #22543d; }
.status-violated { background: #fed7d7; color: #822727; }
.status-unknown, .status-pending { background: #fefcbf; color: #744210; }
.status-bug { background: #c53030; color: #fff; }
.explanation { font-size: 12.5px; color: #2d3748; max-width: 46em; }
code { font-family: ui-monospace, monospace; font-size: 12.5px; background: #f7fafc; padding: 1px 4px;  }
.bug { background: #fed7d7; color: #822727; border: 1px solid #c53030; padding: 8px 12px; margin: 12px 0; font-weight: 600; }
)";

void row(std::string& o, const DemoIndex& index, std::size_t i) {
  const DemoOutcome& r = index.rows[i];
  const bool done = i < index.finished;
  const std::string link = url_segment(r.algorithm);
  o += "<tr id=\"" + escape(r.algorithm) + "\"><td class=\"algorithm\">" + escape(r.algorithm) +
       "</td><td>" + escape(r.summary) + "<br><small class=\"note\">checks: " +
       escape(checks_text(r.plan.checks)) + "; " + escape(r.plan.claim) + "</small></td><td>";
  std::string status = "pending";
  if (done && !r.error.empty()) status = "unknown";
  else if (done && r.unexpected()) status = "bug";
  else if (done && r.failing_seed) status = "violated";
  else if (done) status = r.verdict == "unknown" || !r.plan.expected_to_hold ? "unknown" : "ok";
  o += "<span class=\"verdict status-" + status + "\">" +
       escape(done ? demo_verdict_words(r) : std::string("pending")) + "</span>";
  if (done && r.failing_seed)
    o += "<br><small class=\"note\">seed " + std::to_string(*r.failing_seed) + ", " + escape(r.shrink_text) + "</small>";
  if (done && !r.real_summary.empty())
    o += "<br><small class=\"note real\">on a real etcd: " + escape(r.real_summary) + "</small>";
  o += "</td><td>" + escape(done ? r.violated_check : "") + "</td><td class=\"explanation\">";
  if (done && !r.error.empty()) o += "error: " + escape(r.error);
  else if (done && r.failing_seed && !r.cause_chain.empty()) {
    // The causal chain, each step linked to its place on the report's timeline.
    if (!r.cause_class.empty()) o += "<b>cause: " + escape(r.cause_class) + "</b> ";
    for (const auto& [sentence, anchor] : r.cause_chain)
      o += anchor.empty() ? escape(sentence) + " "
                          : "<a href=\"" + link + "/report.html#" + anchor + "\">" + escape(sentence) + "</a> ";
  } else if (done && r.failing_seed) o += escape(first_sentences(r.explanation, 3));
  else if (done && !r.plan.expected_to_hold)
    o += "Not caught in these seeds, though it is expected to break: a longer --time-budget or "
         "more --seeds finds it. The report shows the first seed run.";
  else if (done)
    o += "No seed broke " + escape(checks_text(r.plan.checks)) +
         ". The report shows the first seed run.";
  o += "</td><td>";
  if (done && r.error.empty())
    o += "<a href=\"" + link + "/report.html\">report</a><br><a href=\"" + link +
         "/verdict.json\">verdict.json</a><br><a href=\"" + link + "/scenario.json\">scenario.json</a>";
  o += "</td><td>";
  if (done && r.error.empty())
    o += "<code>" + breakable(escape(demo_replay_command(index.out_dir, r.algorithm))) + "</code>";
  o += "</td></tr>\n";
}

}  // namespace

std::string demo_replay_command(const std::string& out_dir, const std::string& algorithm) {
  return "lockstep replay " + (std::filesystem::path(out_dir) / algorithm / "scenario.json").string();
}

std::string demo_verdict_words(const DemoOutcome& r) {
  if (!r.error.empty()) return "error";
  if (r.failing_seed)
    return r.unexpected() ? "VIOLATED (expected to hold)" : "violated";
  std::string words = "survived " + std::to_string(r.seeds_run) + (r.seeds_run == 1 ? " seed" : " seeds");
  if (r.unknown > 0) words += " (" + std::to_string(r.unknown) + " unknown)";
  return words;
}

std::string render_demo_index(const DemoIndex& index) {
  std::string o =
      "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
      "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
      "<title>lockstep demo</title><style>";
  o += kStyle;
  o += "</style></head>\n<body>\n<h1>lockstep demo: the lock catalogue under faults</h1>\n";
  const bool complete = index.finished >= index.rows.size();
  o += "<p class=\"note\">" + escape(index.settings) + ". ";
  o += complete ? fmt::format("Finished in {:.1f} s.", index.wall_seconds)
                : fmt::format("Running: {} of {} algorithms done.", index.finished, index.rows.size());
  o += "</p>\n<p>Each algorithm's seeds ran on a simulated etcd cluster with faults drawn from "
       "every fault class, until one broke a check; that run was shrunk to a small scenario. "
       "Broken algorithms are expected to be caught: each report says how. An algorithm that "
       "survived shows the first seed it ran. Every row replays exactly with its command.</p>\n";
  for (std::size_t i = 0; i < index.finished && i < index.rows.size(); ++i)
    if (index.rows[i].unexpected())
      o += "<p class=\"bug\">" + escape(index.rows[i].algorithm) + " violated " +
           escape(index.rows[i].violated_check) +
           ", which it is expected to hold: a bug in lockstep or in the algorithm.</p>\n";
  o += "<table>\n<tr><th>algorithm</th><th>what it is</th><th>verdict</th><th>violated check</th>"
       "<th>what the report shows (the first sentences)</th><th>files</th><th>replay</th></tr>\n";
  for (std::size_t i = 0; i < index.rows.size(); ++i) row(o, index, i);
  o += "</table>\n</body></html>\n";
  return o;
}

std::string write_demo_index(const std::filesystem::path& file, const DemoIndex& index) {
  return write_file_replacing(file, render_demo_index(index));
}

}  // namespace lockstep::cli
