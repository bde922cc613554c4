#include "common/timeline.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <stdexcept>
#include <thread>
#include <vector>

namespace {

TEST(Timeline, WritesChromeTraceEventsWithNamedTracks) {
  cudalabs::Timeline timeline;
  timeline.name_process(0, "GPU 0");
  timeline.add({"upload b0", "copy", 0, "upload stream", 10.0, 5.0});
  timeline.add({"tconv1 b0", "kernel", 0, "compute stream", 15.0, 40.5});
  timeline.add({"upload b1", "copy", 0, "upload stream", 16.0, 5.0});
  const nlohmann::json trace = nlohmann::json::parse(timeline.json());
  const auto& events = trace.at("traceEvents");
  int spans = 0, thread_names = 0, process_names = 0, upload_tid = -1;
  for (const auto& event : events) {
    if (event.at("ph") == "X") {
      ++spans;
      if (event.at("name") == "tconv1 b0") {
        EXPECT_EQ(event.at("ts").get<double>(), 15.0);
        EXPECT_EQ(event.at("dur").get<double>(), 40.5);
        EXPECT_EQ(event.at("cat"), "kernel");
      }
      if (event.at("name").get<std::string>().rfind("upload", 0) == 0) {
        if (upload_tid < 0) upload_tid = event.at("tid");
        EXPECT_EQ(event.at("tid").get<int>(), upload_tid) << "one track per stream";
      }
    } else if (event.at("name") == "thread_name") {
      ++thread_names;
    } else if (event.at("name") == "process_name") {
      ++process_names;
      EXPECT_EQ(event.at("args").at("name"), "GPU 0");
    }
  }
  EXPECT_EQ(spans, 3);
  EXPECT_EQ(thread_names, 2);  // the two streams
  EXPECT_EQ(process_names, 1);
}

TEST(Timeline, RefusesABadSpanAndAnUnwritablePath) {
  cudalabs::Timeline timeline;
  EXPECT_THROW(timeline.add({"", "kernel", 0, "s", 0.0, 1.0}), std::invalid_argument);
  EXPECT_THROW(timeline.add({"x", "kernel", 0, "s", 0.0, -1.0}), std::invalid_argument);
  EXPECT_THROW(timeline.write("/nonexistent/folder/t.json"), std::runtime_error);
}

TEST(Timeline, TakesSpansFromManyThreads) {
  cudalabs::Timeline timeline;
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&timeline, t] {
      for (int i = 0; i < 250; ++i)
        timeline.add({"span", "host", t, "host", timeline.now_us(), 1.0});
    });
  }
  for (auto& adder : threads) adder.join();
  EXPECT_EQ(timeline.spans().size(), 1000u);
  EXPECT_GE(timeline.now_us(), 0.0);
}

}  // namespace
