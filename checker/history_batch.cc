#include "lockstep/checker/history_batch.h"

#include <algorithm>
#include <atomic>
#include <filesystem>
#include <exception>
#include <mutex>
#include <thread>

namespace lockstep {

namespace fs = std::filesystem;

namespace {

bool hidden(const fs::path& p) {
  const std::string name = p.filename().string();
  return !name.empty() && name[0] == '.';
}

// The regular files below `dir`, sorted; an error message instead when the walk fails.
std::vector<HistoryInput> walk_directory(const std::string& dir) {
  std::vector<HistoryInput> found;
  std::error_code ec;
  fs::recursive_directory_iterator it(dir, ec), end;
  for (; !ec && it != end; it.increment(ec)) {
    if (hidden(it->path())) {
      if (it->is_directory(ec)) it.disable_recursion_pending();
      continue;
    }
    std::error_code type_ec;
    if (!it->is_regular_file(type_ec)) continue;  // directories are entered; devices left out
    std::uintmax_t size = it->file_size(type_ec);
    found.push_back({it->path().string(), true, type_ec ? 0 : size, std::nullopt});
  }
  if (ec) return {{dir, false, 0, "cannot list the directory: " + ec.message()}};
  if (found.empty()) return {{dir, false, 0, "is a directory with no files in it"}};
  std::sort(found.begin(), found.end(),
            [](const HistoryInput& a, const HistoryInput& b) { return a.path < b.path; });
  return found;
}

}  // namespace

std::vector<HistoryInput> expand_history_paths(const std::vector<std::string>& arguments) {
  std::vector<HistoryInput> inputs;
  for (const auto& arg : arguments) {
    std::error_code ec;
    if (!arg.empty() && fs::is_directory(arg, ec)) {
      auto found = walk_directory(arg);
      inputs.insert(inputs.end(), std::make_move_iterator(found.begin()),
                    std::make_move_iterator(found.end()));
      continue;
    }
    std::uintmax_t size = fs::is_regular_file(arg, ec) ? fs::file_size(arg, ec) : 0;
    inputs.push_back({arg, false, ec ? 0 : size, std::nullopt});
  }
  return inputs;
}

void check_history_files(const std::vector<HistoryInput>& inputs, const HistoryFileOptions& options,
                         unsigned jobs,
                         const std::function<void(std::size_t, HistoryFileCheck&)>& done) {
  const std::size_t n = inputs.size();
  // Largest first: with a long file started last, every other thread would sit idle at the end.
  std::vector<std::size_t> schedule(n);
  for (std::size_t i = 0; i < n; ++i) schedule[i] = i;
  std::stable_sort(schedule.begin(), schedule.end(), [&](std::size_t a, std::size_t b) {
    return inputs[a].size_bytes > inputs[b].size_bytes;
  });

  std::vector<std::optional<HistoryFileCheck>> results(n);
  std::mutex mutex;        // guards results and next_to_report, and serializes `done`
  std::size_t next_to_report = 0;
  std::atomic<std::size_t> next_to_start{0};

  auto worker = [&] {
    for (;;) {
      const std::size_t k = next_to_start.fetch_add(1);
      if (k >= n) return;
      const std::size_t i = schedule[k];
      const HistoryInput& in = inputs[i];
      HistoryFileCheck c;
      if (in.error) {
        c.path = in.path;
        c.error = HistoryFileError{0, *in.error, false};
      } else {
        // A thread must not let an exception out (that would end the process): out of memory
        // outside the search's own budget becomes this file's error.
        try {
          c = check_history_file(in.path, options);
        } catch (const std::exception& e) {
          c = HistoryFileCheck{};
          c.path = in.path;
          c.error = HistoryFileError{0, std::string("could not be checked: ") + e.what(), false};
        }
      }
      std::lock_guard<std::mutex> lock(mutex);
      results[i] = std::move(c);
      while (next_to_report < n && results[next_to_report]) {
        done(next_to_report, *results[next_to_report]);
        results[next_to_report].reset();  // handed over: free it
        ++next_to_report;
      }
    }
  };

  const std::size_t threads = std::min<std::size_t>(std::max(1u, jobs), n);
  if (threads <= 1) {
    worker();
    return;
  }
  std::vector<std::thread> pool;
  for (std::size_t t = 0; t < threads; ++t) pool.emplace_back(worker);
  for (auto& t : pool) t.join();
}

}  // namespace lockstep
