// A stream's kept scratch (common/stream_scratch.h): a stream's next call gets the same buffer,
// grown where it needs more; a second loan of the same use on the same stream, a stream being
// captured into a graph and streams past the kept ones get memory of their own; a buffer lent to
// one stream is never lent to another at the same time; and the memory holds what the stream wrote
// into it.
#include "common/stream_scratch.h"
#include "common/cuda_check.h"
#include "tests/support/gpu_test.h"

#include <gtest/gtest.h>

#include <memory>
#include <set>
#include <vector>

namespace cudalabs {
namespace {

struct Stream {
  cudaStream_t handle = nullptr;
  Stream() { CUDA_CHECK(cudaStreamCreateWithFlags(&handle, cudaStreamNonBlocking)); }
  ~Stream() { (void)cudaStreamDestroy(handle); }
};

TEST(StreamScratch, AStreamKeepsItsBufferCallAfterCall) {
  CUDALABS_REQUIRE_GPU();
  Stream s;
  void* first = nullptr;
  {
    const StreamScratch scratch(s.handle, ScratchUse::kOperands, 1000);
    ASSERT_TRUE(scratch.kept());
    first = scratch.data();
    EXPECT_EQ(reinterpret_cast<std::uintptr_t>(first) % 256, 0u);
  }
  {
    const StreamScratch again(s.handle, ScratchUse::kOperands, 1000);
    EXPECT_TRUE(again.kept());
    EXPECT_EQ(again.data(), first);
    // the other use has a buffer of its own
    const StreamScratch parts(s.handle, ScratchUse::kParts, 1000);
    EXPECT_TRUE(parts.kept());
    EXPECT_NE(parts.data(), first);
  }
  {
    const StreamScratch grown(s.handle, ScratchUse::kOperands, 1 << 20);
    EXPECT_TRUE(grown.kept());
    // the stream's work sees the grown buffer whole: write its last byte, read it back
    const unsigned char value = 0x5a;
    auto* last = static_cast<unsigned char*>(grown.data()) + (1 << 20) - 1;
    CUDA_CHECK(cudaMemcpyAsync(last, &value, 1, cudaMemcpyHostToDevice, s.handle));
    unsigned char back = 0;
    CUDA_CHECK(cudaMemcpyAsync(&back, last, 1, cudaMemcpyDeviceToHost, s.handle));
    CUDA_CHECK(cudaStreamSynchronize(s.handle));
    EXPECT_EQ(back, value);
  }
}

TEST(StreamScratch, ASecondLoanOfTheSameUseGetsMemoryOfItsOwn) {
  CUDALABS_REQUIRE_GPU();
  Stream s;
  const StreamScratch lent(s.handle, ScratchUse::kOperands, 4096);
  const StreamScratch second(s.handle, ScratchUse::kOperands, 4096);
  EXPECT_TRUE(lent.kept());
  EXPECT_FALSE(second.kept());
  EXPECT_NE(second.data(), nullptr);
  EXPECT_NE(second.data(), lent.data());
}

TEST(StreamScratch, StreamsNeverShareABufferAtOnce) {
  CUDALABS_REQUIRE_GPU();
  // More streams than keep buffers, each holding its loan: every address differs, and the streams
  // past the kept ones get memory of their own.
  std::vector<std::unique_ptr<Stream>> streams;
  std::vector<std::unique_ptr<StreamScratch>> loans;
  std::set<void*> addresses;
  int kept = 0;
  for (int i = 0; i < kScratchStreams + 4; ++i) {
    streams.push_back(std::make_unique<Stream>());
    loans.push_back(
        std::make_unique<StreamScratch>(streams.back()->handle, ScratchUse::kParts, 512));
    addresses.insert(loans.back()->data());
    kept += loans.back()->kept() ? 1 : 0;
  }
  EXPECT_EQ(addresses.size(), loans.size());
  EXPECT_LE(kept, kScratchStreams);
  loans.clear();
  // Once given back, a new stream takes over the buffers of one unused longest.
  Stream late;
  const StreamScratch taken(late.handle, ScratchUse::kParts, 512);
  EXPECT_TRUE(taken.kept());
}

TEST(StreamScratch, ACapturedStreamGetsMemoryOfItsOwn) {
  CUDALABS_REQUIRE_GPU();
  Stream s;
  cudaGraph_t graph = nullptr;
  CUDA_CHECK(cudaStreamBeginCapture(s.handle, cudaStreamCaptureModeThreadLocal));
  bool kept = true;
  {
    const StreamScratch captured(s.handle, ScratchUse::kOperands, 2048);
    kept = captured.kept();
  }
  CUDA_CHECK(cudaStreamEndCapture(s.handle, &graph));
  CUDA_CHECK(cudaGraphDestroy(graph));
  EXPECT_FALSE(kept);
}

}  // namespace
}  // namespace cudalabs
