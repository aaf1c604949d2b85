// TestCertificates: a throwaway PKI for trying TLS against a local etcd (tests, local
// trials), made with the `openssl` command-line tool in a fresh temporary directory.
//
// Contract:
//   - make() creates a directory like `<work_dir or $TMPDIR or /tmp>/lockstep-tls-XXXXXX`
//     holding, all PEM with P-256 keys valid for two days:
//       ca.crt / ca.key          a CA;
//       server.crt / server.key  signed by it, for 127.0.0.1 (subjectAltName IP:127.0.0.1;
//                                usable for serverAuth and clientAuth, as etcd may dial
//                                itself with it);
//       client.crt / client.key  signed by it, CN `client_name`, clientAuth;
//       other-ca.crt             an unrelated CA (for "wrong CA" cases).
//   - No openssl in PATH is a definite unavailable error saying how to install it; a failing
//     command is an error with the command and its output. Either way nothing is left.
//   - The destructor removes the directory and everything in it (other things may live
//     there too, e.g. a LocalCluster's work_dir: destroy those first).
#pragma once

#include <memory>
#include <string>

#include "lockstep/kv/result.h"

namespace lockstep::real {

class TestCertificates {
 public:
  static Result<std::unique_ptr<TestCertificates>> make(const std::string& work_dir = "",
                                                        const std::string& client_name = "client");
  ~TestCertificates();
  TestCertificates(const TestCertificates&) = delete;
  TestCertificates& operator=(const TestCertificates&) = delete;

  const std::string& dir() const { return dir_; }
  std::string ca_cert() const { return dir_ + "/ca.crt"; }
  std::string server_cert() const { return dir_ + "/server.crt"; }
  std::string server_key() const { return dir_ + "/server.key"; }
  std::string client_cert() const { return dir_ + "/client.crt"; }
  std::string client_key() const { return dir_ + "/client.key"; }
  std::string other_ca_cert() const { return dir_ + "/other-ca.crt"; }

 private:
  explicit TestCertificates(std::string dir) : dir_(std::move(dir)) {}
  std::string dir_;
};

}  // namespace lockstep::real
