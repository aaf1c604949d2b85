#include "lockstep/checker/input_file.h"

#include <fstream>

namespace lockstep {

std::string read_input_file(const std::filesystem::path& path, std::string& text,
                            std::uintmax_t max_bytes) {
  namespace fs = std::filesystem;
  const std::string name = path.string();
  std::error_code ec;
  const fs::file_status st = fs::status(path, ec);
  // A loop of links, a path too long, a directory that may not be searched: not "no such file".
  if (ec && ec != std::errc::no_such_file_or_directory) return name + ": " + ec.message();
  if (!fs::exists(st)) return name + ": no such file";
  if (fs::is_directory(st)) return name + ": is a directory, expected a file";
  if (!fs::is_regular_file(st) && !fs::is_fifo(st))
    return name + ": not a regular file (a device or socket cannot be read as input)";
  const std::string too_large = name + ": larger than " + std::to_string(max_bytes >> 20) + " MiB";
  if (fs::is_regular_file(st)) {
    const std::uintmax_t size = fs::file_size(path, ec);
    if (!ec && size > max_bytes) return too_large;
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) return name + ": cannot be opened for reading";
  text.clear();
  // A pipe has no size to check first: read in chunks, stopping past the limit.
  char chunk[1 << 16];
  while (in.read(chunk, sizeof chunk) || in.gcount() > 0) {
    text.append(chunk, static_cast<std::size_t>(in.gcount()));
    if (text.size() > max_bytes) {
      text.clear();
      return too_large;
    }
  }
  if (in.bad()) return name + ": read error";
  return {};
}

}  // namespace lockstep
