#include "lockstep/real_etcd/test_certificates.h"

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <vector>

extern char** environ;

namespace lockstep::real {
namespace {

namespace fs = std::filesystem;

// Extensions by section; our own file, so the system's openssl.cnf cannot change them.
constexpr const char* kConfig = R"([req]
distinguished_name = dn
prompt = no
[dn]
CN = lockstep
[ca_ext]
basicConstraints = critical,CA:TRUE
keyUsage = critical,keyCertSign,cRLSign
subjectKeyIdentifier = hash
[server_ext]
basicConstraints = CA:FALSE
keyUsage = critical,digitalSignature,keyEncipherment
extendedKeyUsage = serverAuth,clientAuth
subjectAltName = IP:127.0.0.1
[client_ext]
basicConstraints = CA:FALSE
keyUsage = critical,digitalSignature,keyEncipherment
extendedKeyUsage = clientAuth
)";

// Runs `openssl args...` in `dir` (posix_spawnp: no shell, safe in a threaded process), its
// output into dir/openssl.log.
Result<void> openssl(const std::string& dir, std::vector<std::string> args) {
  args.insert(args.begin(), "openssl");
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  const std::string log = dir + "/openssl.log";
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_addopen(&actions, 1, log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
  posix_spawn_file_actions_adddup2(&actions, 1, 2);
  posix_spawn_file_actions_addchdir_np(&actions, dir.c_str());
  pid_t pid = 0;
  const int spawned = ::posix_spawnp(&pid, "openssl", &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  if (spawned == ENOENT) {
    return Error(ErrorCode::unavailable,
                 "the openssl tool is not in PATH; install it with `apt-get install openssl`");
  }
  if (spawned != 0) {
    return Error(ErrorCode::unavailable, std::string("cannot run openssl: ") + std::strerror(spawned));
  }
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (WIFEXITED(status) && WEXITSTATUS(status) == 0) return Result<void>::success();
  std::string command;
  for (const auto& a : args) command += (command.empty() ? "" : " ") + a;
  std::ifstream in(log);
  std::stringstream output;
  output << in.rdbuf();
  return Error(ErrorCode::unavailable, "`" + command + "` failed (status " +
                                           std::to_string(status) + "):\n" + output.str());
}

std::vector<std::string> new_key(const std::string& key_file) {
  return {"-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
          "-keyout", key_file};
}

Result<void> make_ca(const std::string& dir, const std::string& name) {
  std::vector<std::string> args = {"req", "-x509", "-new", "-config", "openssl.cnf",
                                   "-extensions", "ca_ext", "-days", "2",
                                   "-subj", "/CN=lockstep test " + name};
  for (auto& a : new_key(name + ".key")) args.push_back(a);
  args.insert(args.end(), {"-out", name + ".crt"});
  return openssl(dir, args);
}

Result<void> make_leaf(const std::string& dir, const std::string& name, const std::string& cn,
                       const std::string& extensions, int serial) {
  std::vector<std::string> csr = {"req", "-new", "-config", "openssl.cnf", "-subj", "/CN=" + cn};
  for (auto& a : new_key(name + ".key")) csr.push_back(a);
  csr.insert(csr.end(), {"-out", name + ".csr"});
  if (auto ok = openssl(dir, csr); !ok) return ok;
  return openssl(dir, {"x509", "-req", "-in", name + ".csr", "-CA", "ca.crt", "-CAkey", "ca.key",
                       "-set_serial", std::to_string(serial), "-days", "2", "-extfile",
                       "openssl.cnf", "-extensions", extensions, "-out", name + ".crt"});
}

}  // namespace

Result<std::unique_ptr<TestCertificates>> TestCertificates::make(const std::string& work_dir,
                                                                 const std::string& client_name) {
  std::string parent = work_dir;
  if (parent.empty()) {
    const char* tmp = std::getenv("TMPDIR");
    parent = tmp && *tmp ? tmp : "/tmp";
  }
  std::string pattern = parent + "/lockstep-tls-XXXXXX";
  if (::mkdtemp(pattern.data()) == nullptr) {
    return Error(ErrorCode::unavailable, "test certificates: cannot create a directory like '" +
                                             pattern + "': " + std::strerror(errno));
  }
  std::unique_ptr<TestCertificates> certs(new TestCertificates(pattern));  // removes it on error
  {
    std::ofstream cnf(pattern + "/openssl.cnf");
    cnf << kConfig;
    if (!cnf.flush()) {
      return Error(ErrorCode::unavailable, "test certificates: cannot write " + pattern + "/openssl.cnf");
    }
  }
  if (auto ok = make_ca(pattern, "ca"); !ok) return ok.error();
  if (auto ok = make_ca(pattern, "other-ca"); !ok) return ok.error();
  if (auto ok = make_leaf(pattern, "server", "127.0.0.1", "server_ext", 2); !ok) return ok.error();
  if (auto ok = make_leaf(pattern, "client", client_name, "client_ext", 3); !ok) return ok.error();
  return certs;
}

TestCertificates::~TestCertificates() {
  std::error_code ec;
  fs::remove_all(dir_, ec);
}

}  // namespace lockstep::real
