#include "lockstep/cli/run_report.h"

#include "lockstep/reports/report_files.h"

namespace lockstep::cli {

std::string write_run_report(const std::filesystem::path& dir, bool overwrite) {
  const std::filesystem::path out = dir / "report.html";
  if (!overwrite && std::filesystem::exists(out))
    return out.string() + " already exists; choose another directory or pass --force to overwrite";
  reports::RunFiles files;
  if (auto err = reports::load_run_files(dir, files); !err.empty()) return err;
  return reports::write_report(files, out);
}

}  // namespace lockstep::cli
