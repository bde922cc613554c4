#include "common/json_record.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <stdexcept>

namespace cudalabs {
namespace {

TEST(RecordedPath, InsideTheRepositoryBecomesRelative) {
  EXPECT_EQ(
      recorded_path("/home/ann/cuda-labs/build-gpu/labs/lab07_solution", "/home/ann/cuda-labs"),
      "build-gpu/labs/lab07_solution");
  EXPECT_EQ(
      recorded_path("/home/ann/cuda-labs/./labs/../labs/09_dcgan/w.cldw", "/home/ann/cuda-labs/"),
      "labs/09_dcgan/w.cldw");
  EXPECT_EQ(recorded_path("/home/ann/cuda-labs", "/home/ann/cuda-labs"), ".");
}

TEST(RecordedPath, OutsideTheRepositoryKeepsOnlyItsName) {
  EXPECT_EQ(recorded_path("/tmp/tmp.XYZ/results", "/home/ann/cuda-labs"), "<outside>/results");
  EXPECT_EQ(recorded_path("/root/out/bench/", "/home/ann/cuda-labs"), "<outside>/bench");
  // A sibling whose name starts like the repository is outside it.
  EXPECT_EQ(recorded_path("/home/ann/cuda-labs-old/x.json", "/home/ann/cuda-labs"),
            "<outside>/x.json");
}

TEST(RecordedPath, RelativePathsAndWordsStayAsTheyAre) {
  EXPECT_EQ(recorded_path("build/labs/lab01", "/r"), "build/labs/lab01");
  EXPECT_EQ(recorded_path("--size", "/r"), "--size");
  EXPECT_EQ(recorded_path("", "/r"), "");
}

TEST(RecordedCommand, EveryPathAmongTheArgumentsIsRecorded) {
  const char* argv[] = {"/repo/build-gpu/labs/lab07_solution",
                        "--results-dir",
                        "/tmp/t.1/results",
                        "--benchmark_out=/repo/out/x.json",
                        "--size",
                        "4096",
                        "--weights=trained"};
  EXPECT_EQ(recorded_command(7, argv, "/repo"),
            "build-gpu/labs/lab07_solution --results-dir <outside>/results "
            "--benchmark_out=out/x.json --size 4096 "
            "--weights=trained");
}

TEST(RecordedCommand, BuiltFromThisRepositoryByDefault) {
  const std::string here =
      std::filesystem::path(CUDALABS_TEST_SOURCE_DIR).lexically_normal().string();
  const std::string program = here + "/build/labs/lab01";
  const char* argv[] = {program.c_str()};
  EXPECT_EQ(recorded_command(1, argv), "build/labs/lab01");
}

TEST(WriteJsonFile, EscapesWhatJsonMust) {
  const std::string path = ::testing::TempDir() + "/json_record_test.json";
  const std::string tricky = "a \"quoted\" name\\ with\na newline\tand a tab \x01";
  write_json_file(path, {{"name", tricky}, {"values", {1.5, 2.0}}, {"count", 3}});
  std::ifstream file(path);
  const nlohmann::json read = nlohmann::json::parse(file);
  EXPECT_EQ(read.at("name"), tricky);
  EXPECT_EQ(read.at("values").size(), 2u);
  EXPECT_EQ(read.at("count"), 3);
  std::filesystem::remove(path);
}

TEST(WriteJsonFile, UnwritablePathIsNamed) {
  try {
    write_json_file("/nonexistent-folder/x.json", nlohmann::json::object());
    FAIL() << "no error";
  } catch (const std::runtime_error& error) {
    EXPECT_STREQ(error.what(), "cannot write /nonexistent-folder/x.json");
  }
}

}  // namespace
}  // namespace cudalabs
