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

// Why files cannot be written into directory `dir` (created when missing), checked before a
// command does its work: it or a parent is no directory, or it cannot be written (for the
// user running lockstep). Empty when nothing is seen wrong; the write itself may still fail.
// `run --out FILE` once simulated the whole run and only then said "Not a directory".
std::string output_directory_problem(const std::filesystem::path& dir);

// The same for an output file `file`: it must not be a directory, and its directory must be
// writable as above.
std::string output_file_problem(const std::filesystem::path& file);

}  // namespace lockstep
