#include "lockstep/checker/entry_list.h"

#include <algorithm>

namespace lockstep {

EntryList::EntryList(const PartitionModel& m) {
  struct Event {
    std::int64_t time;
    bool is_return;
    std::int32_t op;
  };
  std::vector<Event> events;
  for (std::size_t op = 0; op < m.size(); ++op) {
    auto iv = m.interval(op);
    events.push_back({iv.call, false, static_cast<std::int32_t>(op)});
    if (iv.ret) events.push_back({*iv.ret, true, static_cast<std::int32_t>(op)});
  }
  // Closed intervals: at equal times calls come before returns.
  std::stable_sort(events.begin(), events.end(), [](const Event& a, const Event& b) {
    if (a.time != b.time) return a.time < b.time;
    if (a.is_return != b.is_return) return !a.is_return;
    return a.op < b.op;
  });
  e.resize(events.size() + 1);
  call_of.assign(m.size(), -1);
  std::vector<std::int32_t> return_of(m.size(), -1);
  for (std::size_t i = 0; i < events.size(); ++i) {
    auto& x = e[i + 1];
    x.op = events[i].op;
    x.is_call = !events[i].is_return;
    (x.is_call ? call_of : return_of)[x.op] = static_cast<std::int32_t>(i + 1);
    order.push_back(static_cast<std::int32_t>(i + 1));
  }
  for (std::size_t op = 0; op < m.size(); ++op) e[call_of[op]].match = return_of[op];
  for (std::size_t i = 0; i < e.size(); ++i) {
    e[i].prev = static_cast<std::int32_t>(i) - 1;
    e[i].next = i + 1 < e.size() ? static_cast<std::int32_t>(i + 1) : -1;
  }
}

}  // namespace lockstep
