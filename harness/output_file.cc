#include "lockstep/harness/output_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

namespace lockstep {

std::string write_file_replacing(const std::filesystem::path& path, std::string_view text) {
  const std::string target = path.string();
  std::string tmp = target + ".XXXXXX";
  const int fd = ::mkstemp(tmp.data());
  if (fd < 0) return "cannot write " + target + ": " + std::strerror(errno);
  auto fail = [&](int err) {
    ::unlink(tmp.c_str());
    return "cannot write " + target + ": " + std::strerror(err);
  };
  // mkstemp makes the file private (0600); outputs are meant to be read and shared.
  if (::fchmod(fd, 0644) != 0) {
    const int err = errno;
    ::close(fd);
    return fail(err);
  }
  for (std::size_t done = 0; done < text.size();) {
    const ssize_t n = ::write(fd, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      const int err = n < 0 ? errno : EIO;
      ::close(fd);
      return fail(err);
    }
    done += static_cast<std::size_t>(n);
  }
  if (::close(fd) != 0) return fail(errno);
  if (std::rename(tmp.c_str(), target.c_str()) != 0) return fail(errno);
  return {};
}

bool path_taken(const std::filesystem::path& path, std::string& error) {
  std::error_code ec;
  const auto status = std::filesystem::symlink_status(path, ec);
  if (ec && status.type() != std::filesystem::file_type::not_found) {
    error = path.string() + ": " + ec.message();
    return false;
  }
  return std::filesystem::exists(status);
}

}  // namespace lockstep
