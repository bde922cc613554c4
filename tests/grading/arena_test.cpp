// The operands' arena (grader/arena.h): what the referee writes, the runner reads through its own
// descriptor, sized only by the referee; a runner that shrinks it cannot pull the referee's
// mapping away (SIGBUS), and a request past what the referee sized is refused.
#include "grader/arena.h"
#include "grader/channel.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstring>
#include <numeric>
#include <vector>

namespace {

TEST(Arena, RunnerReadsWhatTheRefereeWrote) {
  grader::Arena referee = grader::Arena::create();
  std::vector<std::uint8_t> bytes(3'000'017);
  std::iota(bytes.begin(), bytes.end(), std::uint8_t{7});
  std::memcpy(referee.reserve(bytes.size()), bytes.data(), bytes.size());
  grader::Arena runner = grader::Arena::adopt(dup(referee.fd()));
  EXPECT_EQ(std::memcmp(runner.view(bytes.size()), bytes.data(), bytes.size()), 0);
  // And back: the runner's writes are the referee's reads.
  runner.view(bytes.size())[12345] = 0xA5;
  EXPECT_EQ(referee.reserve(bytes.size())[12345], 0xA5);
}

TEST(Arena, GrowsAndKeepsWhatItHeld) {
  grader::Arena referee = grader::Arena::create();
  referee.reserve(100)[99] = 42;
  const std::size_t large = std::size_t{200} << 20;  // past the first step: a new mapping
  std::uint8_t* data = referee.reserve(large);
  EXPECT_EQ(data[99], 42);
  data[large - 1] = 9;
  grader::Arena runner = grader::Arena::adopt(dup(referee.fd()));
  EXPECT_EQ(runner.view(large)[large - 1], 9);
}

TEST(Arena, RunnerCannotReadPastWhatTheRefereeSized) {
  grader::Arena referee = grader::Arena::create();
  referee.reserve(1000);
  grader::Arena runner = grader::Arena::adopt(dup(referee.fd()));
  EXPECT_THROW(runner.view(std::size_t{1} << 30), grader::ChannelError);
}

TEST(Arena, RunnerCannotShrinkIt) {
  grader::Arena referee = grader::Arena::create();
  referee.reserve(1 << 20)[(1 << 20) - 1] = 1;
  EXPECT_NE(ftruncate(referee.fd(), 0), 0);  // sealed: the referee's mapping stays whole
  EXPECT_EQ(referee.reserve(1 << 20)[(1 << 20) - 1], 1);
}

TEST(Arena, NoDescriptorIsOneClearError) {
  grader::Arena runner = grader::Arena::adopt(-1);
  try {
    runner.view(16);
    FAIL() << "no error";
  } catch (const grader::ChannelError& error) {
    EXPECT_NE(std::string(error.what()).find("no operands' arena"), std::string::npos);
  }
}

}  // namespace
