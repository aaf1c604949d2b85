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

std::string output_directory_problem(const std::filesystem::path& dir) {
  namespace fs = std::filesystem;
  // The directory, or the nearest parent that exists (what create_directories starts from).
  fs::path existing = dir.empty() ? fs::path(".") : dir;
  std::error_code ec;
  for (;;) {
    const auto status = fs::status(existing, ec);
    if (status.type() != fs::file_type::not_found) break;
    if (!existing.has_parent_path() || existing.parent_path() == existing) {
      existing = ".";
      break;
    }
    existing = existing.parent_path();
  }
  const auto status = fs::status(existing, ec);
  if (ec) return dir.string() + ": " + ec.message();
  if (!fs::is_directory(status))
    return existing == dir ? dir.string() + ": not a directory (a file is there)"
                           : dir.string() + ": cannot be created: " + existing.string() + " is not a directory";
  if (::access(existing.c_str(), W_OK | X_OK) != 0)
    return existing == dir ? dir.string() + ": cannot be written: " + std::strerror(errno)
                           : dir.string() + ": cannot be created in " + existing.string() + ": " +
                                 std::strerror(errno);
  return {};
}

std::string output_file_problem(const std::filesystem::path& file) {
  std::error_code ec;
  if (std::filesystem::is_directory(file, ec))
    return file.string() + ": is a directory (give a file name)";
  if (!file.has_parent_path()) return output_directory_problem(".");
  if (auto err = output_directory_problem(file.parent_path()); !err.empty())
    return file.string() + ": cannot be written: " + err;
  return {};
}

}  // namespace lockstep
