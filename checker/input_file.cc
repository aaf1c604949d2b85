#include "lockstep/checker/input_file.h"

#include <cerrno>

#include <fcntl.h>
#include <unistd.h>

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
  std::size_t size = 0;  // a regular file's, to read it in one go
  if (fs::is_regular_file(st)) {
    const std::uintmax_t file_size = fs::file_size(path, ec);
    if (!ec && file_size > max_bytes) return too_large;
    if (!ec) size = static_cast<std::size_t>(file_size);
  }
  const int fd = ::open(name.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return name + ": cannot be opened for reading";
  struct Closer {
    int fd;
    ~Closer() { ::close(fd); }
  } closer{fd};
  // A regular file is read in one go into a buffer of its size; a pipe (no size), and a file
  // that grew meanwhile, in chunks after that, stopping past the limit.
  text.clear();
  text.resize(size + 1);  // one byte more, so that the read of the last chunk sees the end
  std::size_t have = 0;
  for (;;) {
    if (have == text.size()) {
      if (have > max_bytes) {
        text.clear();
        return too_large;
      }
      text.resize(have + (std::size_t{1} << 16));
    }
    const ssize_t n = ::read(fd, text.data() + have, text.size() - have);
    if (n < 0) {
      if (errno == EINTR) continue;
      text.clear();
      return name + ": read error";
    }
    if (n == 0) break;
    have += static_cast<std::size_t>(n);
  }
  text.resize(have);
  if (have > max_bytes) {
    text.clear();
    return too_large;
  }
  return {};
}

}  // namespace lockstep
