// `lockstep merge DIR... --out DIR`: the shards of one exploration (explore --shard I/N, run
// on a CI matrix or a Kubernetes Indexed Job) as one result.
//
// Contract: reads each DIR/summary.json; refuses (exit 2, naming the directory and what
// differs) a file that is not an explore summary or has a field merge reads of the wrong type
// or range (read_shard), shards whose plans differ (algorithm,
// options, faults, checks, sizes, seeds, shard count) and a shard given twice. Writes
// --out/summary.json ("lockstep-explore-merge": the shards present and missing, the seeds
// covered, the failures, the lowest failing seed and the shard that found it) and copies that
// shard's failure.json to --out/failure.json. Never overwrites a file without --force. Exits 1
// when a shard found a failure, 0 when none did.
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <limits>
#include <map>
#include <optional>
#include <set>

#include <nlohmann/json.hpp>

#include "lockstep/checker/input_file.h"
#include "lockstep/cli/commands.h"
#include "lockstep/harness/explore.h"
#include "lockstep/kv_json/json_fields.h"

namespace lockstep::cli {
namespace {

namespace fs = std::filesystem;

struct MergeArgs {
  std::vector<std::string> dirs;
  std::string out_dir;
  bool force = false;
};

// What merge reads of one shard's summary.json, checked (read_shard).
struct Shard {
  std::string dir;
  nlohmann::json summary;
  int index = 0;  // 1-based
  int count = 0;  // plan.shard_count
  std::uint64_t first_seed = 0;
  std::string algorithm;
  std::uint64_t seeds_count = 0;  // seeds.count: this shard's seeds run for sure
  std::uint64_t seeds_done = 0, failures = 0, unknown = 0;
  std::optional<std::uint64_t> failing_seed;
};

// JSON nested more deeply than any summary is refused before anything copies it (nlohmann's
// copies recurse once per level).
constexpr int kMaxSummaryDepth = 64;

// Reads DIR/summary.json and checks every field merge reads: its type, its range, and that the
// shard's fields agree with its plan. An error names the file and the field.
std::string read_shard(const std::string& dir, Shard& out) {
  const fs::path file = fs::path(dir) / "summary.json";
  std::error_code ec;
  if (!fs::exists(file, ec))
    return file.string() + ": no such file (is " + dir + " an explore --out directory?)";
  std::string text;
  if (auto err = read_input_file(file, text); !err.empty()) return err;
  struct TooDeep {};
  const nlohmann::json::parser_callback_t limit_depth = [](int depth, nlohmann::json::parse_event_t event,
                                                           nlohmann::json&) {
    using E = nlohmann::json::parse_event_t;
    if ((event == E::object_start || event == E::array_start) && depth >= kMaxSummaryDepth) throw TooDeep{};
    return true;
  };
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(text, limit_depth);
  } catch (const TooDeep&) {
    return file.string() + ": expected a value nested less deeply (at most " +
           std::to_string(kMaxSummaryDepth) + " levels)";
  } catch (const nlohmann::json::exception& e) {
    return file.string() + ": not valid JSON (" + e.what() + ")";
  }
  if (!j.is_object()) return file.string() + ": expected a JSON object";
  if (!j.contains("format") || j["format"] != "lockstep-explore-summary")
    return file.string() + ": not an explore summary (format \"lockstep-explore-summary\")";
  try {
    JsonFields summary(j, "");
    summary.integer("version", 1, 1);
    for (const char* field : {"plan", "shard", "seeds"})
      if (!summary.has(field) || !j[field].is_object())
        throw JsonFieldError{field, "expected a JSON object (a summary of an older lockstep?)"};
    out.algorithm = summary.string("algorithm");
    if (!summary.get("checks", "a list").is_array()) throw JsonFieldError{"checks", "expected a list"};
    JsonFields plan = summary.object("plan");
    out.count = static_cast<int>(plan.integer("shard_count", 1, kMaxShardCount));
    out.first_seed = plan.unsigned64("first_seed");
    if (plan.string("algorithm") != out.algorithm)
      throw JsonFieldError{"plan.algorithm", "expected the summary's algorithm \"" + out.algorithm + "\""};
    JsonFields shard = summary.object("shard");
    out.index = static_cast<int>(shard.integer("index", 1, out.count));
    if (shard.integer("count", 1, kMaxShardCount) != out.count)
      throw JsonFieldError{"shard.count", "expected plan.shard_count (" + std::to_string(out.count) + ")"};
    JsonFields seeds = summary.object("seeds");
    // Shard I's seeds start at first_seed + I - 1 (explore's ExploreResult::seed_at).
    const std::uint64_t own_first = out.first_seed + static_cast<std::uint64_t>(out.index - 1);
    if (seeds.unsigned64("first") != own_first)
      throw JsonFieldError{"seeds.first", "expected plan.first_seed + shard.index - 1 (" +
                                              std::to_string(own_first) + ")"};
    if (seeds.unsigned64("stride") != static_cast<std::uint64_t>(out.count))
      throw JsonFieldError{"seeds.stride", "expected plan.shard_count (" + std::to_string(out.count) + ")"};
    out.seeds_count = seeds.unsigned64("count");
    out.seeds_done = summary.unsigned64("seeds_done");
    out.failures = summary.unsigned64("failures");
    if (summary.has_optional("unknown")) out.unknown = summary.unsigned64("unknown");
    // Each failing or undecided seed is one of the seeds done.
    if (out.failures > out.seeds_done)
      throw JsonFieldError{"failures", "expected at most seeds_done (" + std::to_string(out.seeds_done) + ")"};
    if (out.unknown > out.seeds_done)
      throw JsonFieldError{"unknown", "expected at most seeds_done (" + std::to_string(out.seeds_done) + ")"};
    // A shard stops at its lowest failing seed: it has one exactly when it found a failure.
    const nlohmann::json& failing = summary.get("failing_seed", "null or a seed");
    if (out.failures > 0) {
      if (!failing.is_number_unsigned())
        throw JsonFieldError{"failing_seed", "expected the lowest failing seed (an integer >= 0), since failures is " +
                                                 std::to_string(out.failures)};
      out.failing_seed = failing.get<std::uint64_t>();
    } else if (!failing.is_null()) {
      throw JsonFieldError{"failing_seed", "expected null, since failures is 0"};
    }
  } catch (const JsonFieldError& e) {
    return e.line(file.string());
  }
  out.dir = dir;
  out.summary = std::move(j);
  return {};
}

// The first field where two plans differ, as "name: a vs b", or empty.
std::string plan_difference(const nlohmann::json& a, const nlohmann::json& b) {
  std::set<std::string> keys;
  for (const auto& [k, v] : a.items()) keys.insert(k);
  for (const auto& [k, v] : b.items()) keys.insert(k);
  for (const auto& k : keys) {
    const nlohmann::json va = a.contains(k) ? a[k] : nlohmann::json();
    const nlohmann::json vb = b.contains(k) ? b[k] : nlohmann::json();
    if (va != vb) return k + ": " + va.dump() + " vs " + vb.dump();
  }
  return {};
}

int merge_main(const MergeArgs& args) {
  std::vector<Shard> shards;
  for (const auto& dir : args.dirs) {
    Shard s;
    if (auto err = read_shard(dir, s); !err.empty()) {
      std::cerr << "lockstep merge: " << err << "\n";
      return kExitBadInput;
    }
    shards.push_back(std::move(s));
  }
  const nlohmann::json& plan = shards.front().summary["plan"];
  std::map<int, const Shard*> by_index;
  for (const auto& s : shards) {
    if (auto diff = plan_difference(plan, s.summary["plan"]); !diff.empty()) {
      std::cerr << "lockstep merge: " << s.dir << " is not a shard of the same exploration as "
                << shards.front().dir << " (" << diff << ")\n";
      return kExitBadInput;
    }
    if (auto [it, fresh] = by_index.emplace(s.index, &s); !fresh) {
      std::cerr << "lockstep merge: " << it->second->dir << " and " << s.dir << " are both shard "
                << s.index << "\n";
      return kExitBadInput;
    }
  }
  const int count = shards.front().count;
  std::vector<int> missing;
  for (int i = 1; i <= count; ++i)
    if (!by_index.count(i)) missing.push_back(i);

  // Seeds: shard I ran first + (I-1) + k * N for k < its count; together they cover every seed
  // from `first` up to the first one some shard did not reach.
  const std::uint64_t first = shards.front().first_seed;
  std::uint64_t covered_until = std::numeric_limits<std::uint64_t>::max();  // exclusive
  std::uint64_t seeds_run = 0, failures = 0, unknown = 0;
  std::optional<std::uint64_t> lowest;
  const Shard* lowest_shard = nullptr;
  for (int i = 1; i <= count; ++i) {
    auto it = by_index.find(i);
    const std::uint64_t reached = it == by_index.end() ? 0 : it->second->seeds_count;
    covered_until = std::min(covered_until, first + static_cast<std::uint64_t>(i - 1) +
                                                reached * static_cast<std::uint64_t>(count));
  }
  for (const auto& s : shards) {
    // Saturating: shards that each claim nearly 2^64 seeds do not wrap the totals to small ones.
    const auto add = [](std::uint64_t& total, std::uint64_t x) {
      total = x > std::numeric_limits<std::uint64_t>::max() - total ? std::numeric_limits<std::uint64_t>::max()
                                                                    : total + x;
    };
    add(seeds_run, s.seeds_done);
    add(failures, s.failures);
    add(unknown, s.unknown);
    if (s.failing_seed && (!lowest || *s.failing_seed < *lowest)) {
      lowest = s.failing_seed;
      lowest_shard = &s;
    }
  }

  const fs::path out = args.out_dir;
  std::error_code ec;
  if (!args.force)
    for (const char* name : {"summary.json", "failure.json"})
      if (fs::exists(out / name, ec)) {
        std::cerr << "lockstep merge: " << (out / name).string()
                  << " exists; choose another --out, or pass --force to replace it\n";
        return kExitBadInput;
      }
  fs::create_directories(out, ec);
  if (ec) {
    std::cerr << "lockstep merge: cannot create " << out.string() << ": " << ec.message() << "\n";
    return kExitBadInput;
  }
  std::string failure_file;
  if (lowest_shard != nullptr) {
    const fs::path from = fs::path(lowest_shard->dir) / "failure.json";
    if (fs::exists(from, ec)) {
      fs::copy_file(from, out / "failure.json", fs::copy_options::overwrite_existing, ec);
      if (ec) {
        std::cerr << "lockstep merge: cannot copy " << from.string() << ": " << ec.message() << "\n";
        return kExitBadInput;
      }
      failure_file = (out / "failure.json").string();
    }
  }
  nlohmann::json shard_list = nlohmann::json::array();
  for (const auto& [i, s] : by_index)
    shard_list.push_back({{"index", i},
                          {"dir", s->dir},
                          {"seeds_done", s->summary["seeds_done"]},
                          {"failing_seed", s->summary["failing_seed"]}});
  const bool covers_first = covered_until > first;
  nlohmann::json summary = {
      {"format", "lockstep-explore-merge"},
      {"version", 1},
      {"plan", plan},
      {"shards", shard_list},
      {"missing_shards", missing},
      {"seeds_done", seeds_run},
      // Every seed from `first` to `through` ran in some shard (null: not even `first`).
      {"seeds_covered",
       {{"first", first}, {"through", covers_first ? nlohmann::json(covered_until - 1) : nlohmann::json(nullptr)}}},
      {"failures", failures},
      {"unknown", unknown},
      {"failing_seed", lowest ? nlohmann::json(*lowest) : nlohmann::json(nullptr)},
      {"failing_shard", lowest_shard ? nlohmann::json(lowest_shard->index) : nlohmann::json(nullptr)},
      {"failure", failure_file.empty() ? nlohmann::json(nullptr) : nlohmann::json(failure_file)}};
  {
    std::ofstream o(out / "summary.json");
    o << summary.dump(2) << "\n";
    if (!o) {
      std::cerr << "lockstep merge: cannot write " << (out / "summary.json").string() << "\n";
      return kExitBadInput;
    }
  }
  std::cout << "merge " << shards.front().algorithm << ": " << by_index.size() << " of " << count
            << " shards, " << seeds_run << " seeds";
  if (covers_first) std::cout << " (every seed from " << first << " to " << covered_until - 1 << ")";
  std::cout << ", " << failures << " failed";
  if (!missing.empty()) {
    std::cout << "; missing shards:";
    for (int i : missing) std::cout << " " << i;
  }
  if (!lowest) {
    std::cout << "\n  wrote " << (out / "summary.json").string() << "\n";
    return kExitOk;
  }
  std::cout << "; lowest failing seed " << *lowest << " (shard " << lowest_shard->index << "/" << count
            << ", " << lowest_shard->dir << ")\n";
  if (!failure_file.empty()) std::cout << "  replay: lockstep replay " << failure_file << "\n";
  std::cout << "  wrote " << (out / "summary.json").string() << "\n";
  return kExitViolated;
}

}  // namespace

void add_merge_command(CLI::App& app, CommandSet& commands) {
  auto args = std::make_shared<MergeArgs>();
  CLI::App* cmd = app.add_subcommand(
      "merge", "Combine the shards of one exploration (explore --shard I/N) into one summary");
  cmd->add_option("dirs", args->dirs, "The shards' explore --out directories")->required();
  cmd->add_option("--out", args->out_dir, "Directory for the merged summary.json and failure.json")
      ->required();
  cmd->add_flag("--force", args->force, "Overwrite summary.json and failure.json already in --out");
  cmd->callback([&commands, args] { commands.action = [args] { return merge_main(*args); }; });
}

}  // namespace lockstep::cli
