// Lab 13's PyTorch timing (labs/13_attention/pytorch_sdpa.h) on the CPU, with stand-ins for the
// interpreter: a record read back as the script writes it, and each reason it can give for not
// running (no interpreter, no PyTorch, no GPU for it, a script that fails), said in one line.
#include "labs/13_attention/pytorch_sdpa.h"

#include <gtest/gtest.h>

#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

namespace {

namespace fs = std::filesystem;
using lab13_library::time_pytorch_sdpa;

// A stand-in interpreter: answers the probe (-c ...) with `probe` and exit status
// `probe_status`, and a bench run by running `bench` (sh) with $dir its --results-dir.
class FakePython : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("lab13_fake_python_" + std::to_string(::getpid()));
    fs::create_directories(dir_);
  }
  void TearDown() override {
    ::unsetenv("CUDALABS_PYTHON");
    fs::remove_all(dir_);
  }
  void install(const std::string& probe, int probe_status, const std::string& bench) {
    const fs::path path = dir_ / "python";
    std::ofstream script(path);
    script << "#!/bin/sh\n"
           << "if [ \"$1\" = \"-c\" ]; then echo '" << probe << "'; exit " << probe_status
           << "; fi\n"
           << "echo \"$*\" > '" << (dir_ / "arguments").string() << "'\n"
           << "dir=''; while [ $# -gt 0 ]; do [ \"$1\" = --results-dir ] && dir=\"$2\"; shift; "
              "done\n"
           << bench << "\n";
    script.close();
    ::chmod(path.c_str(), 0755);
    ::setenv("CUDALABS_PYTHON", path.c_str(), 1);
  }
  fs::path dir_;
};

TEST_F(FakePython, ReadsTheScriptsRecord) {
  install(
      "9.9.9 True", 0,
      "cat > \"$dir/lab13_pytorch_fake.json\" <<'JSON'\n"
      "{\"context\": {\"torch\": \"9.9.9\", \"skipped\": {\"cudnn/b1h1s64d64\": \"not in this "
      "PyTorch\"}},\n"
      " \"benchmarks\": [{\"run_name\": \"pytorch_flash/b1h1s64d64\", \"real_time\": 0.5, "
      "\"gflops\": 2000.0},\n"
      "  {\"run_name\": \"pytorch_best/b1h1s64d64\", \"real_time\": 0.5, \"gflops\": 2000.0}]}\n"
      "JSON");
  const auto results = time_pytorch_sdpa({"b1h1s64d64"}, 3, 200.0, "");
  ASSERT_EQ(results.skipped.count("all"), 0u) << results.skipped.at("all");
  const auto flash = results.find("flash", "b1h1s64d64");
  ASSERT_TRUE(flash.has_value());
  EXPECT_DOUBLE_EQ(flash->ms, 0.5);
  EXPECT_DOUBLE_EQ(flash->gflops, 2000.0);
  EXPECT_TRUE(results.find("best", "b1h1s64d64").has_value());
  EXPECT_FALSE(results.find("cudnn", "b1h1s64d64").has_value());
  EXPECT_FALSE(results.find("flash", "b1h1s128d64").has_value());
  EXPECT_EQ(results.skipped.at("cudnn/b1h1s64d64"), "not in this PyTorch");
  EXPECT_EQ(results.torch_version, "9.9.9");
  EXPECT_TRUE(results.record.empty()) << "a temporary record is not kept";
  std::ifstream arguments(dir_ / "arguments");
  std::string line;
  std::getline(arguments, line);
  EXPECT_NE(line.find("--repetitions 3 --settle-ms 200"), std::string::npos) << line;
}

TEST_F(FakePython, NoInterpreter) {
  ::setenv("CUDALABS_PYTHON", (dir_ / "missing" / "python3").c_str(), 1);
  const auto results = time_pytorch_sdpa({"b1h1s64d64"}, 3, 200.0, "");
  EXPECT_NE(results.skipped.at("all").find("was not found"), std::string::npos);
}

TEST_F(FakePython, NoPyTorch) {
  install("ModuleNotFoundError: No module named torch", 1, "exit 1");
  const auto results = time_pytorch_sdpa({"b1h1s64d64"}, 3, 200.0, "");
  EXPECT_NE(results.skipped.at("all").find("PyTorch is not installed"), std::string::npos);
  EXPECT_NE(results.skipped.at("all").find("No module named torch"), std::string::npos);
}

TEST_F(FakePython, NoGpuForPyTorch) {
  install("9.9.9 False", 0, "exit 1");
  const auto results = time_pytorch_sdpa({"b1h1s64d64"}, 3, 200.0, "");
  EXPECT_NE(results.skipped.at("all").find("sees no CUDA GPU"), std::string::npos);
}

TEST_F(FakePython, ScriptFailsWithoutARecord) {
  install("9.9.9 True", 0, "echo 'RuntimeError: out of memory'; exit 3");
  const auto results = time_pytorch_sdpa({"b1h1s64d64"}, 3, 200.0, "");
  EXPECT_NE(
      results.skipped.at("all").find("exited 3 without a record: RuntimeError: out of memory"),
      std::string::npos)
      << results.skipped.at("all");
}

}  // namespace
