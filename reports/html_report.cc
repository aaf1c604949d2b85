#include "lockstep/reports/html_report.h"

#include <sstream>

#include "lockstep/reports/explain.h"
#include "lockstep/reports/html_text.h"
#include "lockstep/reports/report_assets.h"
#include "lockstep/reports/report_text.h"
#include "lockstep/reports/run_facts.h"
#include "lockstep/reports/timeline_aggregate.h"
#include "lockstep/reports/timeline_model.h"
#include "lockstep/reports/violation_focus.h"

namespace lockstep::reports {

namespace {

std::int64_t us(std::int64_t ns) { return ns / 1000; }

std::string check_words(const std::string& name) {
  if (name == "mutex") return "mutual exclusion";
  if (name == "resource") return "the protected resource";
  if (name == "liveness") return "liveness";
  if (name == "linearizability") return "linearizability";
  return name;
}

std::string text_of(const nlohmann::json& j, const char* field, const std::string& fallback = "") {
  if (!j.is_object() || !j.contains(field)) return fallback;
  const auto& v = j[field];
  return v.is_string() ? v.get<std::string>() : v.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

std::string verdict_words(const nlohmann::json& verdict, std::string& status_out) {
  std::vector<std::string> violated, unknown;
  std::size_t total = 0;
  if (verdict.contains("checks") && verdict["checks"].is_array())
    for (const auto& c : verdict["checks"]) {
      ++total;
      const std::string status = text_of(c, "status");
      if (status == "violated") violated.push_back(check_words(text_of(c, "name")));
      if (status == "unknown") unknown.push_back(check_words(text_of(c, "name")));
    }
  std::ostringstream s;
  if (!violated.empty()) {
    status_out = "violated";
    s << "Violated: " << join_words(violated) << (violated.size() == 1 ? " does" : " do")
      << " not hold (" << violated.size() << " of " << total << " checks failed).";
  } else if (!unknown.empty()) {
    status_out = "unknown";
    s << "Unknown: " << join_words(unknown) << " could not be decided within the budget; no check failed.";
  } else {
    status_out = "ok";
    s << "OK: all " << total << " checks hold.";
  }
  return s.str();
}

std::string figure_value(const std::string& key, const nlohmann::json& v) {
  const bool ns = key.size() > 3 && key.compare(key.size() - 3, 3, "_ns") == 0;
  if (ns && v.is_number_integer()) return format_duration(v.get<std::int64_t>());
  return v.is_string() ? v.get<std::string>() : v.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

void checks_section(std::ostream& o, const nlohmann::json& verdict) {
  o << "<section id=\"checks\"><h2>Checks</h2><table class=\"checks\"><tr><th>check</th><th>status</th>"
       "<th>summary and figures</th></tr>\n";
  if (verdict.contains("checks") && verdict["checks"].is_array())
    for (const auto& c : verdict["checks"]) {
      const std::string name = text_of(c, "name"), status = text_of(c, "status");
      o << "<tr data-check=\"" << html_escape(name) << "\"><td><b>" << html_escape(name) << "</b><br><small>"
        << html_escape(check_words(name)) << "</small></td><td><span class=\"verdict status-" << html_escape(status)
        << "\">" << html_escape(status) << "</span></td><td>" << html_escape(text_of(c, "summary"))
        << "<div class=\"figures\">";
      if (c.contains("figures") && c["figures"].is_object())
        for (auto it = c["figures"].begin(); it != c["figures"].end(); ++it)
          o << "<span>" << html_escape(it.key()) << " <b>" << html_escape(figure_value(it.key(), it.value()))
            << "</b></span>";
      o << "</div>";
      if (c.contains("witness") && !c["witness"].empty())
        o << "<details><summary>witness</summary><pre>"
          << html_escape(c["witness"].dump(2, ' ', false, nlohmann::json::error_handler_t::replace))
          << "</pre></details>";
      o << "</td></tr>\n";
    }
  o << "</table></section>\n";
}

void explanation_section(std::ostream& o, const std::vector<CheckExplanation>& explanations) {
  if (explanations.empty()) return;
  o << "<section id=\"violation-explanation\"><h2>What happened</h2>\n";
  for (const auto& x : explanations) {
    o << "<h3>" << html_escape(check_words(x.check)) << " (" << html_escape(x.check) << ")</h3><ol>";
    for (std::size_t i = 0; i < x.sentences.size(); ++i) {
      // A sentence that names a request, lease or fault links to its place on the timeline:
      // a click zooms the timeline to that span (microseconds, as the timeline's data).
      const bool linked = i < x.spans.size() && x.spans[i].has_value();
      o << "<li id=\"why-" << html_escape(x.check) << "-" << i + 1 << "\">";
      if (linked)
        o << "<a class=\"cause-link\" href=\"#timeline-section\" data-zoom-span=\""
          << us(x.spans[i]->from_ns) << "," << us(x.spans[i]->to_ns) << "\">";
      o << html_escape(x.sentences[i]);
      if (linked) o << "</a>";
      o << "</li>";
    }
    o << "</ol>\n";
  }
  o << "</section>\n";
}

void timeline_section(std::ostream& o, const std::vector<ViolationFocus>& foci, const AggregateOutcome& agg) {
  o << "<section id=\"timeline-section\"><h2>Timeline</h2><div class=\"toolbar\">";
  for (std::size_t i = 0; i < foci.size(); ++i)
    o << "<button class=\"danger\" data-zoom-violation=\"" << i << "\">zoom to violation"
      << (foci.size() > 1 ? ": " + html_escape(foci[i].check) : "") << "</button>";
  o << "<button id=\"zoom-all\">whole run</button><button id=\"zoom-in\">zoom in</button>"
       "<button id=\"zoom-out\">zoom out</button><span class=\"view\" id=\"view-span\"></span></div>\n";
  struct Swatch { const char* cls; const char* text; };
  static const Swatch swatches[] = {
      {"k-belief", "client believed it held the lock"}, {"k-key", "its lock key existed in etcd"},
      {"k-lease", "its lease"}, {"k-lease-expired", "lease expired"}, {"k-op-ok", "operation ok"},
      {"k-op-fail", "failed"}, {"k-op-info", "indeterminate (open-ended)"}, {"k-leader", "leader term"},
      {"k-write-accepted", "resource accepted"}, {"k-write-rejected", "resource rejected"},
      {"f-pause band", "pause"}, {"f-partition band", "partition"}, {"f-crash band", "crash"},
      {"f-clock band", "clock skew"}, {"f-lease-drop band", "lease keep-alives dropped"},
      {"f-leader-change band instant", "leader change"}, {"f-delay band", "delay/loss/dup/reorder"},
      {"violation-band", "violation"}};
  o << "<div class=\"legend\">";
  for (const auto& s : swatches)
    o << "<span><svg width=\"14\" height=\"10\"><rect class=\"" << s.cls
      << "\" width=\"14\" height=\"10\"/></svg> " << s.text << "</span>";
  o << "</div>\n<div id=\"timeline\"><svg id=\"timeline-svg\" "
       "width=\"1200\" height=\"200\"></svg></div>\n<p class=\"note\">Drag to pan; Ctrl or Shift + wheel to "
       "zoom; hover for details. Times are seconds on the simulator's true clock. ";
  if (!agg.note.empty()) o << html_escape(agg.note);
  o << "</p></section>\n";
}

void faults_section(std::ostream& o, const RunFacts& facts) {
  o << "<section id=\"faults\"><h2>Faults injected</h2>";
  if (facts.faults().empty()) {
    o << "<p>None.</p></section>\n";
    return;
  }
  constexpr std::size_t kMaxRows = 300;
  o << "<table class=\"faults\"><tr><th>when</th><th>what</th></tr>";
  std::size_t n = 0;
  for (const auto& f : facts.faults()) {
    if (++n > kMaxRows) break;
    o << "<tr><td>" << html_escape(fault_span(f)) << "</td><td>" << html_escape(describe_fault(f)) << "</td></tr>";
  }
  o << "</table>";
  if (facts.faults().size() > kMaxRows)
    o << "<p class=\"note\">" << facts.faults().size() - kMaxRows << " more faults are in the history.</p>";
  o << "</section>\n";
}

void run_section(std::ostream& o, const nlohmann::json& verdict, const nlohmann::json& scenario) {
  o << "<section id=\"run\"><h2>The run</h2><div class=\"figures\">";
  for (const char* f : {"algorithm", "seed", "events", "history_hash"})
    if (verdict.contains(f)) o << "<span>" << f << " <b>" << html_escape(text_of(verdict, f)) << "</b></span>";
  // A real etcd run's verdict keeps the simulator's stats fields (docs/verdict-format.md):
  // its simulated_seconds are the real seconds it took, and the simulator's counts are zeros
  // that say nothing of it.
  const bool real_run = scenario.is_null() && verdict.contains("backend");
  if (verdict.contains("stats") && verdict["stats"].is_object())
    for (auto it = verdict["stats"].begin(); it != verdict["stats"].end(); ++it) {
      std::string name = it.key();
      if (real_run && name != "simulated_seconds") continue;
      if (real_run) name = "real_seconds";
      o << "<span>" << html_escape(name) << " <b>" << html_escape(figure_value(it.key(), it.value())) << "</b></span>";
    }
  o << "</div>";
  // `replay --backend etcd` (or --confirm-real): the same scenario tried on a real cluster.
  if (verdict.contains("real_confirmation") && verdict["real_confirmation"].is_object()) {
    const nlohmann::json& real = verdict["real_confirmation"];
    o << "<p class=\"note\" id=\"real-confirmation\"><b>On a real etcd:</b> "
      << html_escape(text_of(real, "summary")) << "</p>";
    if (real.contains("runs") && real["runs"].is_array() && !real["runs"].empty()) {
      o << "<ul class=\"real-runs\">";
      int k = 0;
      for (const auto& run : real["runs"]) {
        ++k;
        o << "<li>real run " << k << ": ";
        const std::string dir = run.is_object() ? text_of(run, "dir") : "";
        std::string violated;
        if (run.is_object() && run.contains("violated") && run["violated"].is_array())
          for (const auto& c : run["violated"])
            violated += (violated.empty() ? "" : ", ") + (c.is_string() ? c.get<std::string>() : c.dump());
        const std::string what = run.is_object() && run.contains("error")
                                     ? "could not run: " + text_of(run, "error")
                                 : violated.empty() ? std::string("every check ok")
                                                    : violated + " violated";
        if (!dir.empty())
          o << "<a href=\"" << html_escape(dir) << "/report.html\">" << html_escape(what) << "</a>";
        else
          o << html_escape(what);
        o << "</li>";
      }
      o << "</ul>";
    }
    if (real.contains("skipped_faults") && real["skipped_faults"].is_array() && !real["skipped_faults"].empty()) {
      o << "<p class=\"note\">Skipped on the real backend:</p><ul>";
      for (const auto& f : real["skipped_faults"])
        o << "<li>" << html_escape(f.is_string() ? f.get<std::string>() : f.dump()) << "</li>";
      o << "</ul>";
    }
  }
  if (real_run) {
    // A run on a real etcd: no scenario, since nothing replays it; the backend stands instead.
    o << "<p class=\"note\" id=\"real-run\">A run on a real etcd: it wrote no scenario.json, since "
         "nothing replays it.</p>";
    o << "<details><summary>backend</summary><pre>"
      << html_escape(verdict["backend"].dump(2, ' ', false, nlohmann::json::error_handler_t::replace))
      << "</pre></details>";
  } else {
    o << "<details><summary>scenario.json</summary><pre>"
      << html_escape(scenario.dump(2, ' ', false, nlohmann::json::error_handler_t::replace))
      << "</pre></details>";
  }
  o << "</section>\n";
}

nlohmann::json timeline_json(const TimelineModel& m, const std::vector<ViolationFocus>& foci) {
  nlohmann::json j;
  j["start"] = us(m.start_ns);
  j["end"] = us(m.end_ns);
  j["kinds"] = nlohmann::json::array();
  for (int k = 0; k < kItemKindCount; ++k) j["kinds"].push_back(item_kind_name(static_cast<ItemKind>(k)));
  j["lanes"] = nlohmann::json::array();
  for (const auto& l : m.lanes) j["lanes"].push_back({{"name", l.name}, {"kind", l.kind}, {"rows", l.rows}});
  // Arrays, not objects: a 20,000-item timeline stays a few hundred kilobytes.
  j["items"] = nlohmann::json::array();
  for (const auto& it : m.items)
    j["items"].push_back({it.lane, it.row, static_cast<int>(it.kind), us(it.start_ns), us(it.end_ns), it.count,
                          it.label, it.tip});
  j["bands"] = nlohmann::json::array();
  for (const auto& b : m.bands)
    j["bands"].push_back({b.kind, us(b.start_ns), us(b.end_ns), b.open_end ? 1 : 0, b.lanes, b.count, b.tip});
  j["violations"] = nlohmann::json::array();
  for (const auto& f : foci) {
    nlohmann::json lanes = nlohmann::json::array();
    for (const auto& p : f.processes)
      if (int lane = m.lane_of(p); lane >= 0) lanes.push_back(lane);
    j["violations"].push_back({{"check", f.check}, {"summary", f.summary}, {"a", us(f.core_start_ns)},
                               {"b", us(f.core_end_ns)}, {"ca", us(f.context_start_ns)},
                               {"cb", us(f.context_end_ns)}, {"lanes", lanes}});
  }
  return j;
}

}  // namespace

std::string render_report_html(const History& history, const nlohmann::json& verdict,
                               const nlohmann::json& scenario) {
  const RunFacts facts(history);
  const auto foci = violation_foci(history, verdict);
  const auto explanations = explain_checks(history, verdict);
  TimelineModel model = build_timeline(facts);
  const AggregateOutcome agg = aggregate_timeline(model, foci);

  std::string status;
  const std::string words = verdict_words(verdict, status);
  const std::string title = text_of(verdict, "algorithm", "run") + ", seed " + text_of(verdict, "seed", "?");
  std::ostringstream o;
  o << "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
    << "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
    << "<title>lockstep: " << html_escape(title) << " " << html_escape(status) << "</title>\n"
    << "<style>" << kReportCss << "</style>\n<script>" << kErrorCaptureJs << "</script>\n</head>\n"
    << "<body data-verdict=\"" << html_escape(status) << "\">\n"
    << "<h1>lockstep report: " << html_escape(title) << " <span class=\"verdict status-" << html_escape(status)
    << "\">" << html_escape(status == "ok" ? "OK" : status == "violated" ? "VIOLATED" : "UNKNOWN") << "</span></h1>\n"
    << "<p class=\"verdict-words\" id=\"verdict-words\">" << html_escape(words) << "</p>\n"
    << "<div id=\"script-errors\" class=\"errors\"></div>\n";
  checks_section(o, verdict);
  o << "<section id=\"replay\"><h2>Replay</h2><pre id=\"replay-command\">"
    << html_escape(text_of(verdict, "replay", "(no replay command in verdict.json)")) << "</pre></section>\n";
  timeline_section(o, foci, agg);
  explanation_section(o, explanations);
  faults_section(o, facts);
  run_section(o, verdict, scenario);
  o << "<script type=\"application/json\" id=\"timeline-data\">" << json_for_script(timeline_json(model, foci))
    << "</script>\n<script>" << kTimelineJs << "</script>\n</body></html>\n";
  return o.str();
}

}  // namespace lockstep::reports
