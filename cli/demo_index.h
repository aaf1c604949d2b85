// index.html of `lockstep demo`: one self-contained static page (inline CSS, no script, no
// URL outside the demo directory) with one row per algorithm of the catalogue.
//
// Contract: render_demo_index is a pure function of its input. Each row holds the algorithm,
// its catalogue description, what the demo checked, the verdict ("violated" with the check and
// the report's explanation, or "survived N seeds"), links to <algorithm>/report.html and
// <algorithm>/verdict.json (relative, so the directory can be moved or archived), and the
// replay command. Rows at or past `finished` are shown as pending, so that an index written
// while the demo runs is already a valid page. write_demo_index writes it through a temporary
// file renamed into place, and returns an error message or empty.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "lockstep/cli/demo_run.h"

namespace lockstep::cli {

struct DemoIndex {
  std::string out_dir;   // the demo directory as the user named it (for replay commands)
  std::string settings;  // one line: budget, jobs, seeds, shape of the runs
  std::vector<DemoOutcome> rows;  // every algorithm, in catalogue order
  std::size_t finished = 0;       // rows[0, finished) are done
  double wall_seconds = 0;
};

std::string render_demo_index(const DemoIndex& index);
std::string write_demo_index(const std::filesystem::path& file, const DemoIndex& index);

// The replay command of one row: "lockstep replay OUT/ALGORITHM/scenario.json".
std::string demo_replay_command(const std::string& out_dir, const std::string& algorithm);

// The verdict of a finished row in words: "violated", "survived 240 seeds (2 unknown)", ...
std::string demo_verdict_words(const DemoOutcome& outcome);

}  // namespace lockstep::cli
