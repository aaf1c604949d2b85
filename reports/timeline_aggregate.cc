#include "lockstep/reports/timeline_aggregate.h"

#include <algorithm>
#include <map>
#include <tuple>

#include "lockstep/reports/report_text.h"

namespace lockstep::reports {

namespace {

// Merges a time-sorted run of items of one lane, row and kind: neighbours closer than
// `gap_ns` become one. gap_ns < 0 keeps them all.
std::vector<TimelineItem> merge_items(std::vector<TimelineItem> items, std::int64_t gap_ns) {
  if (gap_ns < 0 || items.size() < 2) return items;
  std::vector<TimelineItem> out;
  for (auto& it : items) {
    if (!out.empty() && it.start_ns - out.back().end_ns <= gap_ns) {
      TimelineItem& m = out.back();
      m.end_ns = std::max(m.end_ns, it.end_ns);
      m.count += it.count;
      if (m.label != it.label) m.label.clear();
      continue;
    }
    out.push_back(std::move(it));
  }
  for (auto& m : out)
    if (m.count > 1)
      m.tip = std::to_string(m.count) + " x " + item_kind_name(m.kind) + " merged, " +
              format_seconds(m.start_ns) + " to " + format_seconds(m.end_ns) +
              " (full detail is kept only around the violation)";
  return out;
}

std::vector<TimelineBand> merge_bands(std::vector<TimelineBand> bands, std::int64_t gap_ns) {
  if (gap_ns < 0 || bands.size() < 2) return bands;
  std::vector<TimelineBand> out;
  for (auto& b : bands) {
    if (!out.empty() && b.start_ns - out.back().end_ns <= gap_ns) {
      TimelineBand& m = out.back();
      m.end_ns = std::max(m.end_ns, b.end_ns);
      m.open_end = m.open_end || b.open_end;
      m.count += b.count;
      m.tip = std::to_string(m.count) + " " + m.kind + " faults merged, " + format_seconds(m.start_ns) +
              " to " + format_seconds(m.end_ns);
      continue;
    }
    out.push_back(std::move(b));
  }
  return out;
}

using ItemGroups = std::map<std::tuple<int, int, int>, std::vector<TimelineItem>>;
using BandGroups = std::map<std::pair<std::string, std::vector<int>>, std::vector<TimelineBand>>;

template <class Groups, class Merge>
auto merge_all(const Groups& groups, std::int64_t gap_ns, Merge merge) {
  typename Groups::mapped_type out;
  for (const auto& [key, members] : groups) {
    auto merged = merge(members, gap_ns);
    for (auto& m : merged) out.push_back(std::move(m));
  }
  return out;
}

// Merges with a gap that starts at `gap_ns` and doubles until at most `budget` remain.
template <class Groups, class Merge>
auto merge_within_budget(const Groups& groups, std::int64_t gap_ns, std::size_t budget, Merge merge,
                         std::int64_t& used_gap_ns) {
  for (;;) {
    auto out = merge_all(groups, gap_ns, merge);
    used_gap_ns = gap_ns;
    if (out.size() <= budget || gap_ns > (std::int64_t{1} << 60)) return out;
    gap_ns = std::max<std::int64_t>(1, gap_ns * 2);
  }
}

}  // namespace

AggregateOutcome aggregate_timeline(TimelineModel& m, const std::vector<ViolationFocus>& foci,
                                    const AggregateOptions& options) {
  AggregateOutcome r;
  r.items_before = m.items.size() + m.bands.size();
  r.items_after = r.items_before;
  if (r.items_before <= options.full_detail_items) return r;
  r.aggregated = true;

  for (const auto& f : foci) {
    if (!f.located) continue;
    r.window_start_ns = r.has_window ? std::min(r.window_start_ns, f.context_start_ns) : f.context_start_ns;
    r.window_end_ns = r.has_window ? std::max(r.window_end_ns, f.context_end_ns) : f.context_end_ns;
    r.has_window = true;
  }
  if (r.has_window) {
    const std::int64_t pad = std::max<std::int64_t>((r.window_end_ns - r.window_start_ns) / 10, 500'000'000);
    r.window_start_ns -= pad;
    r.window_end_ns += pad;
  }
  auto in_window = [&](std::int64_t start, std::int64_t end) {
    return r.has_window && start <= r.window_end_ns && end >= r.window_start_ns;
  };

  ItemGroups coarse_items, window_items;
  std::sort(m.items.begin(), m.items.end(), [](const TimelineItem& a, const TimelineItem& b) {
    return a.start_ns < b.start_ns;
  });
  std::size_t window_count = 0;
  for (auto& it : m.items) {
    const auto key = std::make_tuple(it.lane, it.row, static_cast<int>(it.kind));
    if (in_window(it.start_ns, it.end_ns)) {
      window_items[key].push_back(std::move(it));
      ++window_count;
    } else {
      coarse_items[key].push_back(std::move(it));
    }
  }
  BandGroups coarse_bands, window_bands;
  std::sort(m.bands.begin(), m.bands.end(), [](const TimelineBand& a, const TimelineBand& b) {
    return a.start_ns < b.start_ns;
  });
  for (auto& b : m.bands) {
    auto key = std::make_pair(b.kind, b.lanes);
    (in_window(b.start_ns, b.end_ns) ? window_bands : coarse_bands)[key].push_back(std::move(b));
  }

  const std::int64_t span = std::max<std::int64_t>(1, m.end_ns - m.start_ns);
  const std::int64_t first_gap = std::max<std::int64_t>(1, span / options.coarse_columns);
  std::int64_t band_gap = 0;
  m.items = merge_within_budget(coarse_items, first_gap, options.coarse_items, merge_items, r.coarse_gap_ns);
  m.bands = merge_within_budget(coarse_bands, first_gap, options.coarse_items, merge_bands, band_gap);

  std::int64_t window_gap = -1;  // keep everything when it fits
  if (window_count > options.detail_items)
    window_gap = std::max<std::int64_t>(1, (r.window_end_ns - r.window_start_ns) / (4 * options.coarse_columns));
  std::int64_t used = -1;
  auto detail = window_gap < 0 ? merge_all(window_items, -1, merge_items)
                               : merge_within_budget(window_items, window_gap, options.detail_items, merge_items, used);
  r.window_gap_ns = window_gap < 0 ? -1 : used;
  for (auto& it : detail) m.items.push_back(std::move(it));
  for (auto& b : merge_all(window_bands, -1, merge_bands)) m.bands.push_back(std::move(b));
  r.items_after = m.items.size() + m.bands.size();

  r.note = std::to_string(r.items_before) + " timeline items were drawn as " + std::to_string(r.items_after) +
           ": ";
  if (r.has_window)
    r.note += "full detail from " + format_seconds(r.window_start_ns) + " to " + format_seconds(r.window_end_ns) +
              (r.window_gap_ns >= 0 ? " (items closer than " + format_duration(r.window_gap_ns) + " merged)" : "") +
              "; elsewhere ";
  r.note += "items closer than " + format_duration(r.coarse_gap_ns) + " are merged into one with a count.";
  return r;
}

}  // namespace lockstep::reports
