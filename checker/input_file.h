// Reading a file a user named (a history, a scenario, a run directory's files): one place that
// refuses what cannot be such a file before reading it.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>

namespace lockstep {

// The most read_input_file reads (1 GiB): a longer input is refused instead of filling memory.
constexpr std::uintmax_t kMaxInputFileBytes = std::uintmax_t{1} << 30;

// Reads the whole of `path` into `text`. Returns empty on success, else a message starting with
// the path: no such file, a directory, a device or socket (/dev/zero would never end), an
// unreadable file, or more than `max_bytes`. Regular files and pipes (`<(...)`, /dev/stdin) are
// read.
std::string read_input_file(const std::filesystem::path& path, std::string& text,
                            std::uintmax_t max_bytes = kMaxInputFileBytes);

}  // namespace lockstep
