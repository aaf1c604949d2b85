// The HTML report as text: what it contains, that it is self-contained, and that it escapes.
#include <catch2/catch.hpp>

#include <cctype>

#include "lockstep/checker/mutex_checker.h"
#include "lockstep/reports/html_report.h"
#include "lockstep/reports/html_text.h"
#include "lockstep/reports/report_test_support.h"

namespace lockstep::reports {
namespace {

using reports_test::verdict_of;

using reports_test::contains;

// Does any src= or href= attribute point at another host? (std::regex would do, but g++ 12
// warns inside <regex> at -O1, which -Werror turns into a failed Sanitize build.)
bool references_remote(const std::string& html) {
  std::string lower = html;
  for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  for (const std::string attribute : {"src", "href"}) {
    for (auto at = lower.find(attribute); at != std::string::npos; at = lower.find(attribute, at + 1)) {
      std::size_t i = at + attribute.size();
      while (i < lower.size() && std::isspace(static_cast<unsigned char>(lower[i]))) ++i;
      if (i >= lower.size() || lower[i] != '=') continue;
      ++i;
      while (i < lower.size() && (std::isspace(static_cast<unsigned char>(lower[i])) || lower[i] == '"' || lower[i] == '\'')) ++i;
      const std::string value = lower.substr(i, 8);
      if (value.rfind("http:", 0) == 0 || value.rfind("https:", 0) == 0 || value.rfind("//", 0) == 0) return true;
    }
  }
  return false;
}

// The JSON the page's script draws from.
nlohmann::json timeline_data(const std::string& html) {
  const std::string open = "<script type=\"application/json\" id=\"timeline-data\">";
  const auto start = html.find(open);
  REQUIRE(start != std::string::npos);
  const auto end = html.find("</script>", start);
  REQUIRE(end != std::string::npos);
  return nlohmann::json::parse(html.substr(start + open.size(), end - start - open.size()));
}

TEST_CASE("the report of a violation shows the verdict - every check - the replay command and the story") {
  const History h = reports_test::paused_holder_history();
  CheckResult liveness;
  liveness.name = "liveness";
  liveness.summary = "the lock kept being granted";
  liveness.figures = {{"healed_at_ns", reports_test::ms_to_ns(4200)}};
  const auto verdict = verdict_of({check_mutual_exclusion(h), liveness}, h);
  const std::string html = render_report_html(h, verdict, {{"seed", 7}});

  CHECK(html.rfind("<!DOCTYPE html>", 0) == 0);
  CHECK(contains(html, "Violated: mutual exclusion does not hold (1 of 2 checks failed)."));
  CHECK(contains(html, "<tr data-check=\"mutex\">"));
  CHECK(contains(html, "<tr data-check=\"liveness\">"));
  CHECK(contains(html, "healed_at_ns <b>4.200 s</b>"));
  CHECK(contains(html, "<pre id=\"replay-command\">lockstep replay scenarios/test.json</pre>"));
  CHECK(contains(html, "id=\"violation-explanation\""));
  CHECK(contains(html, "client-0 was paused from 1.500 s to 4.200 s"));
  CHECK(contains(html, "data-zoom-violation=\"0\""));
  CHECK(contains(html, "<body data-verdict=\"violated\">"));

  const auto data = timeline_data(html);
  REQUIRE(data["violations"].size() == 1);
  CHECK(data["violations"][0]["check"] == "mutex");
  CHECK(data["violations"][0]["a"] == 3'200'000);  // microseconds
  CHECK(data["violations"][0]["b"] == 4'300'000);
  std::vector<std::string> lanes;
  for (const auto& l : data["lanes"]) lanes.push_back(l["name"]);
  CHECK(lanes == std::vector<std::string>{"client-0", "client-2", "resource", "member-0", "member-1", "member-2"});
  // The violation's lanes are the two clients.
  CHECK(data["violations"][0]["lanes"] == nlohmann::json::array({0, 1}));
  // Both resource writes are drawn with their tokens, and the pause shades client-0's lane.
  int writes = 0;
  for (const auto& it : data["items"])
    if (data["kinds"][it[2].get<int>()] == "write-accepted") {
      ++writes;
      CHECK((it[6] == "t5" || it[6] == "t7"));
    }
  CHECK(writes == 2);
  REQUIRE(data["bands"].size() == 1);
  CHECK(data["bands"][0][0] == "pause");
  CHECK(data["bands"][0][4] == nlohmann::json::array({0}));
}

TEST_CASE("the report is self-contained: no URL in any src or href - no external style or script") {
  const History h = reports_test::paused_holder_history();
  const std::string html = render_report_html(h, verdict_of({check_mutual_exclusion(h)}, h), {});
  CHECK_FALSE(references_remote(html));
  CHECK(references_remote("<img SRC = 'https://x/y.png'>"));  // the detector itself works
  CHECK(references_remote("<a href=//cdn.example/x.js>"));
  CHECK_FALSE(references_remote("<a href=\"#checks\">"));
  CHECK_FALSE(contains(html, "<link"));
  CHECK_FALSE(contains(html, "@import"));
  CHECK_FALSE(contains(html, "http://"));
  CHECK_FALSE(contains(html, "https://"));
  CHECK_FALSE(contains(html, "<script src"));
}

TEST_CASE("text from the files cannot break out of the page") {
  const History h = reports_test::paused_holder_history();
  auto verdict = verdict_of({check_mutual_exclusion(h)}, h);
  verdict["checks"][0]["summary"] = "</script><script>alert(1)</script> & <b>";
  verdict["algorithm"] = "<img onerror=x>";
  const std::string html = render_report_html(h, verdict, {{"note", "</script>"}});
  CHECK_FALSE(contains(html, "<script>alert(1)"));
  CHECK_FALSE(contains(html, "<img onerror"));
  CHECK(contains(html, "&lt;/script&gt;&lt;script&gt;alert(1)&lt;/script&gt; &amp; &lt;b&gt;"));
  // Inside the embedded JSON, '<' is escaped, and the JSON still parses to the same text.
  CHECK(timeline_data(html)["violations"][0]["summary"] == "</script><script>alert(1)</script> & <b>");
  CHECK(reports::json_for_script(nlohmann::json("a</script>&")) == "\"a\\u003c/script\\u003e\\u0026\"");
}

TEST_CASE("an OK run still gets a report - with no violation to zoom to") {
  reports_test::HistoryBuilder b;
  b.add("client-0", EventKind::invoke, "acquire", reports_test::ms_to_ns(1));
  b.add("client-0", EventKind::ok, "acquire", reports_test::ms_to_ns(2), {}, {{"token", 1}});
  const auto verdict = verdict_of({check_mutual_exclusion(b.history)}, b.history);
  const std::string html = render_report_html(b.history, verdict, {});
  CHECK(contains(html, "OK: all 1 checks hold."));
  CHECK_FALSE(contains(html, "id=\"violation-explanation\""));
  CHECK_FALSE(contains(html, "data-zoom-violation=\""));
  CHECK(timeline_data(html)["violations"].empty());
}

TEST_CASE("an empty history renders without a timeline to speak of") {
  History empty;
  const auto verdict = verdict_of({check_mutual_exclusion(empty)}, empty);
  const std::string html = render_report_html(empty, verdict, {});
  CHECK(timeline_data(html)["items"].empty());
  CHECK(contains(html, "<p>None.</p>"));
}

}  // namespace
}  // namespace lockstep::reports
