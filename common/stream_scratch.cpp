#include "common/stream_scratch.h"

#include "common/cuda_check.h"
#include "common/stream_capture.h"

#include <algorithm>
#include <array>
#include <cstdint>
#include <map>
#include <mutex>
#include <vector>

namespace cudalabs {
namespace {

constexpr int kUses = 2;

// One stream's buffers on a device, and when it last used them (a count of loans).
struct KeptBuffers {
  unsigned long long stream_id = 0;
  std::array<void*, kUses> data{};
  std::array<std::size_t, kUses> bytes{};
  std::array<bool, kUses> lent{};
  unsigned long long last_loan = 0;
};

struct Registry {
  std::mutex guard;
  std::map<int, std::vector<KeptBuffers>> devices;
  unsigned long long loans = 0;
};

Registry& registry() {
  static Registry all;
  return all;
}

// The kept buffers of `stream_id` on `device`, made or taken over from the stream unused longest
// (once the device is idle, so that none of its launches still reads them); null where every
// kept stream has a buffer lent out. The registry's guard is held.
KeptBuffers* buffers_of(Registry& all, int device, unsigned long long stream_id) {
  std::vector<KeptBuffers>& streams = all.devices[device];
  streams.reserve(kScratchStreams);  // never moved: a lent buffer's flag is pointed to
  const auto found = std::find_if(streams.begin(), streams.end(),
                                  [&](const KeptBuffers& b) { return b.stream_id == stream_id; });
  if (found != streams.end()) return &*found;
  if (static_cast<int>(streams.size()) < kScratchStreams) {
    streams.push_back({});
    streams.back().stream_id = stream_id;
    return &streams.back();
  }
  KeptBuffers* oldest = nullptr;
  for (KeptBuffers& b : streams) {
    const bool idle = std::none_of(b.lent.begin(), b.lent.end(), [](bool l) { return l; });
    if (idle && (oldest == nullptr || b.last_loan < oldest->last_loan)) oldest = &b;
  }
  if (oldest == nullptr) return nullptr;
  CUDA_CHECK(cudaDeviceSynchronize());  // the old stream's launches are done with the buffers
  oldest->stream_id = stream_id;
  return oldest;
}

}  // namespace

cudaMemPool_t scratch_pool() {
  static std::mutex guard;
  static std::map<int, cudaMemPool_t> pools;
  int device = 0;
  CUDA_CHECK(cudaGetDevice(&device));
  const std::lock_guard<std::mutex> lock(guard);
  if (const auto found = pools.find(device); found != pools.end()) return found->second;
  cudaMemPoolProps properties{};
  properties.allocType = cudaMemAllocationTypePinned;
  properties.location.type = cudaMemLocationTypeDevice;
  properties.location.id = device;
  cudaMemPool_t pool = nullptr;
  CUDA_CHECK(cudaMemPoolCreate(&pool, &properties));
  std::uint64_t keep_everything = ~std::uint64_t{0};
  CUDA_CHECK(cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &keep_everything));
  pools[device] = pool;
  return pool;
}

StreamScratch::StreamScratch(cudaStream_t stream, ScratchUse use, std::size_t bytes)
    : stream_(stream) {
  const int u = static_cast<int>(use);
  if (!stream_is_capturing(stream)) {
    int device = 0;
    unsigned long long stream_id = 0;
    CUDA_CHECK(cudaGetDevice(&device));
    CUDA_CHECK(cudaStreamGetId(stream, &stream_id));
    Registry& all = registry();
    const std::lock_guard<std::mutex> lock(all.guard);
    KeptBuffers* kept = buffers_of(all, device, stream_id);
    if (kept != nullptr && !kept->lent[u]) {
      if (kept->bytes[u] < bytes) {  // grown on the stream: the last call's launches come first
        if (kept->data[u] != nullptr) CUDA_CHECK(cudaFreeAsync(kept->data[u], stream));
        kept->data[u] = nullptr;
        kept->bytes[u] = 0;
        CUDA_CHECK(cudaMallocFromPoolAsync(&kept->data[u], bytes, scratch_pool(), stream));
        kept->bytes[u] = bytes;
      }
      kept->lent[u] = true;
      kept->last_loan = ++all.loans;
      slot_ = &kept->lent[u];
      data_ = kept->data[u];
      return;
    }
  }
  CUDA_CHECK(cudaMallocFromPoolAsync(&data_, bytes, scratch_pool(), stream));
}

StreamScratch::~StreamScratch() {
  if (slot_ != nullptr) {
    const std::lock_guard<std::mutex> lock(registry().guard);
    *slot_ = false;
    return;
  }
  if (data_ != nullptr) (void)cudaFreeAsync(data_, stream_);  // a destructor must not throw
}

}  // namespace cudalabs
