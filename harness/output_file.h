// Writing an output file whole, never over a file nobody asked to replace.
//
// Contract: write_file_replacing(path, text) writes `text` into a fresh temporary file beside
// `path` and renames it over `path`, so that a reader sees the old file or the whole new one.
// The temporary's name is PATH.XXXXXX made by mkstemp (created with O_CREAT | O_EXCL under a
// random suffix), so it is never a file that already exists: a fixed PATH.tmp clobbered and
// then deleted a user's file of that name. On failure the temporary is removed and the
// message names `path` (not the temporary) with the system's reason. Whether `path` itself
// may be replaced is the caller's decision (--force), taken before.
// Every writer of run files, scenarios, summaries and the demo index goes through it
// (reports/report_files.cc writes report.html the same way).
#pragma once

#include <filesystem>
#include <string>
#include <string_view>

namespace lockstep {

// Returns an error message ("cannot write PATH: REASON"), or empty on success.
std::string write_file_replacing(const std::filesystem::path& path, std::string_view text);

// Whether something is at `path`, a dangling symbolic link included (std::filesystem::exists
// follows links, so a link to nowhere counted as free and was replaced). `error` gets a
// message when the lookup itself fails (a loop of links, a name too long).
bool path_taken(const std::filesystem::path& path, std::string& error);

}  // namespace lockstep
