// Lab 13 solution, a step past flash_wgmma_overlap_128 toward FlashAttention-3: warp
// specialisation. In the kernels before it every thread both copies and computes: each iteration
// waits for its own copies and meets every other thread at a __syncthreads before the stage may be
// refilled, so the slowest warp's softmax holds up the next tile's copies. Here a block of three
// warpgroups splits the work: warpgroup 0, the producer, only copies (its register budget lowered
// to kProducerRegisters by setmaxnreg, its registers given to the others); warpgroups 1 and 2, the
// consumers, own 64 queries each and run flash_wgmma_overlap_128's loop (S(t + 1) and P(t) V(t) in
// flight together, the softmax of t + 1 under P(t) V(t)) at kConsumerRegisters, without a single
// block-wide barrier: each waits for its tiles, and releases them, on mbarriers. K and V have
// rings of kStages stages each, with a "full" barrier (the producer's 128 threads arrive once
// their copies have landed) and an "empty" one (each consumer warp arrives once its wgmma reading
// the stage are done) per stage, so that K(t + 1) may be read while V(t) still is.
//
// The producer's 128 threads copy with cp.async (16 bytes a thread, zeros past the sequence) into
// load_rows's swizzled panels, no tensor maps needed (kTma below uses the copy engine). It keeps
// one copy in flight while it signals the one before (cp.async.wait_group 1, then fence.proxy.async
// so that the tensor cores see the bytes, then the arrival): the copies of a thread complete in
// order, so the group that remains is the latest one. Why the order cannot deadlock: before
// refilling a stage the producer waits for the tile two before it to be released; the consumers
// release that tile needing only tiles already signalled, never the one pending.
//
// kTma (flash_wgmma_ws_tma): the producer is one thread issuing TMA copies (cp.async.bulk.tensor,
// one 64-column panel of 128 rows each, the 128-byte swizzle wgmma reads, zeros past the sequence)
// whose bytes complete the "full" barriers (one arrival, expect_tx); the three tensor maps (Q, K, V
// as head_dim x sequence x heads) come as a __grid_constant__ parameter, built by the launcher
// (attention_steps.cu) for each launch. Without kTma the parameter is unused.
//
// kPingPong (flash_wgmma_ws_pingpong): FlashAttention-3's inter-warpgroup ping-pong. The two
// consumers take turns to issue their wgmma, on two named barriers (bar.sync on its own, bar.arrive
// on the other's once issued): while one's products run, the other computes its softmax, so the
// tensor cores see one warpgroup's products after the other's instead of both at once and then
// neither. Consumer 1 gives consumer 0 the first turn, and consumer 0 takes one more turn after its
// loop, so that each barrier's arrivals match its waits and none is left pending at exit (a turn
// given under a branch while wgmma are in flight would make ptxas serialize them).
//
// kHeaviestFirst (flash_wgmma_ws_lpt): under the causal mask the blocks take their query tiles in
// heaviest_first.h's order (longest first across the heads of an L2 section) instead of
// FlashBlock's (longest first within each head), so that no heavy block starts last.
//
// kSoftmax (flash_wgmma_ws_lazy, _chains): fused_softmax.cuh's flags; with kLazyRescale the output
// is rescaled only where a warp's rows outgrew their lagging maximum. kKeys = 176 (_176, _tiles
// without the mask): S as m64n176k16 and TMA boxes of 176 rows for K and V.
//
// kPersistent (flash_wgmma_ws_persistent): a block an SM (the launcher's grid) walks the query
// tiles blockIdx.x, blockIdx.x + gridDim.x, ... (heaviest_first's order under the causal mask, head
// after head without it). The K and V rings run on across the tiles (ring position n, counted over
// the block's tiles, picks the stage and the barrier phase), and Q has full and empty barriers of
// its own, so that the producer loads the next tile's Q and first K while the consumers finish this
// one (a new block would start with its rings empty): two Q tiles where they fit (ws_q_tiles), else
// one, freed as soon as the tile's last S has landed (flash_wgmma_ws_resident, at 176 keys).
#pragma once

#include "attention_kernels.cuh"
#include "common/async_copy.cuh"
#include "flash_wgmma_overlap_kernel.cuh"
#include "fused_softmax.cuh"
#include "heaviest_first.h"
#include "lab.h"
#include "labs/11_tensor_cores/tensor_core_ptx.cuh"
#include "mma_tiles.cuh"
#include "tiles.h"
#include "wgmma_attention.cuh"

#include <cuda.h>
#include <cuda_bf16.h>

#include <cstddef>
#include <cstdint>

namespace lab13 {

/// flash_wgmma_ws's tiles: 128 queries, key tiles of kKeys, a producer warpgroup and two consumer
/// warpgroups, kQTiles Q tiles (2: the persistent kernel's next tile loads during this one),
/// kStages K and kStages V tiles, and the mbarriers after them.
template <int kKeys_, int kQTiles_ = 1>
struct WgmmaWsTile : WgmmaKeysTile<kKeys_> {
  static constexpr int kThreads = 3 * 128;  ///< the producer warpgroup and two consumers
  static constexpr int kStages = 2;         ///< K tiles and V tiles in flight, each
  static constexpr int kQTiles = kQTiles_;  ///< Q tiles in flight
  /// Full and empty for each Q tile and for each K and V stage.
  static constexpr int kBarriers = 2 * kQTiles + 4 * kStages;

  /// Bytes of shared memory to ask for: Q, the stages, the barriers, and room to align to 1024.
  __host__ __device__ static constexpr std::size_t shared_bytes(int head_dim) {
    return kQTiles * WgmmaTile::q_bytes(head_dim) +
           2 * kStages * WgmmaKeysTile<kKeys_>::kv_bytes(head_dim) +
           kBarriers * sizeof(std::uint64_t) + WgmmaTile::kAlignment;
  }
};

/// Q tiles of flash_wgmma_ws's shared memory: two for a persistent kernel whose key tiles leave
/// room for them (128 keys; at 176 the second would pass the 227 KiB an SM gives a block), else
/// one.
__host__ __device__ constexpr int ws_q_tiles(int keys, bool persistent) {
  return persistent && keys <= 128 ? 2 : 1;
}

/// The tensor maps of flash_wgmma_ws_tma's copies: Q, K and V as head_dim x sequence x heads
/// (boxes of 64 columns x a Q tile's or a K and V tile's rows x 1 head), a kernel parameter.
struct AttentionTensorMaps {
  CUtensorMap q, k, v;
};

namespace {

// TMA: the box at (column, row, head) of the 3-D tensor `map` describes into shared memory at
// `destination`, its bytes signalled on `barrier`; zeros outside the tensor.
__device__ __forceinline__ void tma_load_3d(void* destination, const CUtensorMap* map,
                                            std::uint64_t* barrier, int column, int row, int head) {
#if LAB11_HOPPER_DEVICE_CODE
  asm volatile(
      "cp.async.bulk.tensor.3d.shared::cluster.global.mbarrier::complete_tx::bytes "
      "[%0], [%1, {%3, %4, %5}], [%2];\n" ::"r"(tc::shared_address(destination)),
      "l"(map), "r"(tc::shared_address(barrier)), "r"(column), "r"(row), "r"(head)
      : "memory");
#endif
}

// [flash_wgmma_ws]
constexpr int kProducerRegisters = 40;   // load_rows's loop and the barrier phases
constexpr int kConsumerRegisters = 232;  // 128 * 40 + 256 * 232 <= 65,536
constexpr int kTurnBarrier = 1;  // named barriers 1 and 2: the consumers' turns (0: syncthreads)

// Waits for named barrier `id` with the other consumer's arrival (256 threads in all).
__device__ __forceinline__ void consumer_turn_wait(int id) {
  tc::named_barrier_sync<256>(id);
}
// Gives the consumer waiting on named barrier `id` its turn.
__device__ __forceinline__ void consumer_turn_give(int id) {
  tc::named_barrier_arrive<256>(id);
}

template <int kHeadDim, int kKeys, bool kPingPong = false, bool kTma = false,
          bool kHeaviestFirst = false, int kSoftmax = 0, bool kPersistent = false>
__global__ void __launch_bounds__(WgmmaWsTile<kKeys>::kThreads, 1)
    flash_wgmma_ws_kernel(AttentionArgs args, const __grid_constant__ AttentionTensorMaps maps) {
  static_assert(!kPersistent || kTma, "the persistent producer is the TMA one");
#if LAB11_HOPPER_DEVICE_CODE
  using Tile = WgmmaWsTile<kKeys, ws_q_tiles(kKeys, kPersistent)>;
  constexpr int kQTiles = Tile::kQTiles;
  // One Q tile: freed as soon as the item's last S has landed, so that the next item's Q loads
  // under this one's last P V and its output's stores.
  constexpr bool kEarlyQRelease = kPersistent && kQTiles == 1;
  constexpr int kStages = Tile::kStages;
  constexpr int kQueries = Tile::kQueries;
  constexpr int kOutBlocks = kHeadDim / 8;
  constexpr int kQBytes = static_cast<int>(WgmmaTile::q_bytes(kHeadDim));
  constexpr int kTileBytes = static_cast<int>(Tile::kv_bytes(kHeadDim));
  constexpr int kConsumerWarps = 8;  // each arrives on an "empty" barrier once
  extern __shared__ unsigned char dynamic_shared[];
  unsigned char* base = reinterpret_cast<unsigned char*>(
      (reinterpret_cast<std::uintptr_t>(dynamic_shared) + WgmmaTile::kAlignment - 1) &
      ~std::uintptr_t{WgmmaTile::kAlignment - 1});
  unsigned char* q_tiles = base;
  unsigned char* k_tiles = base + kQTiles * kQBytes;
  unsigned char* v_tiles = k_tiles + kStages * kTileBytes;
  std::uint64_t* q_full = reinterpret_cast<std::uint64_t*>(v_tiles + kStages * kTileBytes);
  std::uint64_t* q_empty = q_full + kQTiles;
  std::uint64_t* k_full = q_empty + kQTiles;
  std::uint64_t* v_full = k_full + kStages;
  std::uint64_t* k_empty = v_full + kStages;
  std::uint64_t* v_empty = k_empty + kStages;

  const AttentionShape& shape = args.shape;
  const int sequence = shape.sequence;
  const int query_tiles = FlashBlock<Tile, kHeadDim>::query_tiles(shape);
  const int heads = shape.batch * shape.heads;
  // The work of a block: one query tile of one head (kPersistent: items blockIdx.x, blockIdx.x +
  // gridDim.x, ... of all query_tiles x heads, in heaviest_first's order under the causal mask,
  // else head after head, so that the blocks at work at once share a few heads' K and V in L2).
  const int items = kPersistent ? query_tiles * heads : 1;
  const auto block_of = [&](int item) {
    const int index = kPersistent ? item : static_cast<int>(blockIdx.x + blockIdx.y * gridDim.x);
    if (kHeaviestFirst && shape.causal) {
      const ScheduledTile work =
          heaviest_first(index, query_tiles, heads, heads_per_section(sequence, kHeadDim, heads));
      return FlashBlock<Tile, kHeadDim>(shape, work.query_tile, work.head);
    }
    if (kPersistent) {
      const int query_tile = item % query_tiles;
      return FlashBlock<Tile, kHeadDim>(
          shape, shape.causal ? query_tiles - 1 - query_tile : query_tile, item / query_tiles);
    }
    return FlashBlock<Tile, kHeadDim>(shape);
  };
  const int first_item = kPersistent ? static_cast<int>(blockIdx.x) : 0;
  const int item_step = kPersistent ? static_cast<int>(gridDim.x) : 1;
  const int warpgroup = threadIdx.x / 128, warp = (threadIdx.x / 32) % 4, lane = threadIdx.x % 32;

  constexpr int kProducerArrivals = kTma ? 1 : 128;  // the copying thread(s)
  if (threadIdx.x == 0) {
    for (int q = 0; q < kQTiles; ++q) {
      tc::mbarrier_init(&q_full[q], kProducerArrivals);
      tc::mbarrier_init(&q_empty[q], kConsumerWarps);
    }
    for (int s = 0; s < kStages; ++s) {
      tc::mbarrier_init(&k_full[s], kProducerArrivals);
      tc::mbarrier_init(&v_full[s], kProducerArrivals);
      tc::mbarrier_init(&k_empty[s], kConsumerWarps);
      tc::mbarrier_init(&v_empty[s], kConsumerWarps);
    }
    tc::fence_barrier_init();
  }
  __syncthreads();  // the last block-wide barrier: from here on, the mbarriers alone

  if (kTma && warpgroup == 0) {
    // The producer: one thread, Q then K(0), V(0), K(1), ..., each tile's bytes expected on its
    // "full" barrier and signalled there by the copy engine.
    tc::set_max_registers<kProducerRegisters, false>();
    if (threadIdx.x != 0) return;
    constexpr int kPanels = kHeadDim / 64;
    // Ring position n (the block's n-th K or V tile over all its items): stage n % kStages.
    const auto copy_tile = [&](unsigned char* tiles, std::uint64_t* empty, std::uint64_t* full,
                               const CUtensorMap* map, int n, int t, int head) {
      const int stage = n % kStages;
      tc::mbarrier_wait(&empty[stage], ((n / kStages) & 1) ^ 1);  // tile n - kStages released
      tc::mbarrier_arrive_expect_bytes(&full[stage], kTileBytes);
      for (int panel = 0; panel < kPanels; ++panel) {
        tma_load_3d(tiles + stage * kTileBytes + panel * kKeys * 128, map, &full[stage], 64 * panel,
                    t * kKeys, head);
      }
    };
    int ring = 0;
    for (int item = first_item, j = 0; item < items; item += item_step, ++j) {
      const FlashBlock<Tile, kHeadDim> block = block_of(item);
      const int q = j % kQTiles;
      tc::mbarrier_wait(&q_empty[q], ((j / kQTiles) & 1) ^ 1);  // item j - kQTiles done with it
      tc::mbarrier_arrive_expect_bytes(&q_full[q], kQBytes);
      for (int panel = 0; panel < kPanels; ++panel) {
        tma_load_3d(q_tiles + q * kQBytes + panel * kQueries * 128, &maps.q, &q_full[q], 64 * panel,
                    block.first_query, block.head);
      }
      for (int t = 0; t < block.key_tiles; ++t) {
        copy_tile(k_tiles, k_empty, k_full, &maps.k, ring + t, t, block.head);
        copy_tile(v_tiles, v_empty, v_full, &maps.v, ring + t, t, block.head);
      }
      ring += block.key_tiles;
    }
    return;
  }
  if (!kTma && warpgroup == 0) {
    // The producer: Q, then K(0), V(0), K(1), V(1), ...; each signalled once the next is issued.
    tc::set_max_registers<kProducerRegisters, false>();
    const FlashBlock<Tile, kHeadDim> block = block_of(0);
    const __nv_bfloat16 *k = args.k + block.head_offset, *v = args.v + block.head_offset;
    load_rows<kHeadDim, 128>(q_tiles, args.q + block.head_offset, block.first_query, kQueries,
                             sequence, PanelRows<kQueries>{});
    cudalabs::async_copy_commit();
    std::uint64_t* pending = q_full;
    const auto copy_tile = [&](unsigned char* tiles, std::uint64_t* empty, std::uint64_t* full,
                               const __nv_bfloat16* tensor, int t) {
      const int stage = t % kStages;
      tc::mbarrier_wait(&empty[stage], ((t / kStages) & 1) ^ 1);  // tile t - kStages released
      load_rows<kHeadDim, 128>(tiles + stage * kTileBytes, tensor, t * kKeys, kKeys, sequence,
                               PanelRows<kKeys>{});
      cudalabs::async_copy_commit();
      cudalabs::async_copy_wait<1>();  // the copies before this tile's have landed
      tc::fence_proxy_async_shared();  // for the tensor cores
      tc::mbarrier_arrive(pending);
      pending = &full[stage];
    };
    for (int t = 0; t < block.key_tiles; ++t) {
      copy_tile(k_tiles, k_empty, k_full, k, t);
      copy_tile(v_tiles, v_empty, v_full, v, t);
    }
    cudalabs::async_copy_wait<0>();
    tc::fence_proxy_async_shared();
    tc::mbarrier_arrive(pending);
    return;
  }

  // A consumer: flash_wgmma_overlap_128's loop for its 64 queries of each item.
  tc::set_max_registers<kConsumerRegisters, true>();
  const int consumer = warpgroup - 1;
  const float scale_log2 = args.scale * kLog2e;
  // Ring position n (the block's n-th K or V tile over all its items): stage n % kStages.
  const auto wait_full = [&](std::uint64_t* full, int n) {
    tc::mbarrier_wait(&full[n % kStages], (n / kStages) & 1);
  };
  // After a wgmma_wait that covers the products reading a stage (or Q): this warp is done with it.
  const auto release = [&](std::uint64_t* empty) {
    __syncwarp();
    if (lane == 0) tc::mbarrier_arrive(empty);
  };
  // kPingPong: a turn before each issue of wgmma (each item's prologue's and one per tile).
  const auto take_turn = [&] {
    if constexpr (kPingPong) consumer_turn_wait(kTurnBarrier + consumer);
  };
  const auto end_turn = [&] {
    if constexpr (kPingPong) consumer_turn_give(kTurnBarrier + 1 - consumer);
  };
  if constexpr (kPingPong) {
    if (consumer == 1) consumer_turn_give(kTurnBarrier);  // consumer 0 goes first
  }

  int ring = 0;
  for (int item = first_item, j = 0; item < items; item += item_step, ++j) {
    const FlashBlock<Tile, kHeadDim> block = block_of(item);
    float o_flat[kHeadDim / 2] = {};
    float(&o)[kOutBlocks][4] = *reinterpret_cast<float(*)[kOutBlocks][4]>(&o_flat);
    float row_max[2] = {-INFINITY, -INFINITY}, row_sum[2] = {0.0f, 0.0f};
    const int first_row = block.first_query + 64 * consumer + 16 * warp + lane / 4;
    const int rows[2] = {first_row, first_row + 8};
    const int q = j % kQTiles;
    const std::uint32_t q_rows = tc::shared_address(q_tiles + q * kQBytes) + 64 * consumer * 128;
    const auto issue_scores = [&](float(&s_flat)[kKeys / 2], int n) {
      issue_score_tile<kHeadDim, kQueries, kKeys>(
          s_flat, q_rows, tc::shared_address(k_tiles + (n % kStages) * kTileBytes));
    };
    const auto softmax_of = [&](float(&s_flat)[kKeys / 2], int tile, float(&rescale)[2]) {
      return softmax_of_tile<kKeys, kSoftmax>(s_flat, tile, block.first_query, rows, shape, row_max,
                                              row_sum, rescale, scale_log2);
    };
    std::uint32_t p[kKeys / 16][4];  // P(t), the A operand of O += P(t) V(t)

    tc::mbarrier_wait(&q_full[q], (j / kQTiles) & 1);
    wait_full(k_full, ring);
    {
      float s_flat[kKeys / 2] = {};
      float rescale[2];
      tc::wgmma_hold(s_flat);
      take_turn();
      tc::wgmma_fence();
      issue_scores(s_flat, ring);
      end_turn();
      tc::wgmma_wait<0>();
      tc::wgmma_hold(s_flat);
      release(&k_empty[ring % kStages]);
      if (kEarlyQRelease && block.key_tiles == 1) release(&q_empty[q]);
      softmax_of(s_flat, 0, rescale);  // o is 0: no rescaling
      pack_probabilities<kKeys>(s_flat, p);
    }

    for (int t = 0; t < block.key_tiles; ++t) {
      const int n = ring + t;
      const bool more = t + 1 < block.key_tiles;
      if (more) wait_full(k_full, n + 1);
      wait_full(v_full, n);
      float s_flat[kKeys / 2] = {};
      tc::wgmma_hold(s_flat);
      take_turn();
      tc::wgmma_fence();
      if (more) issue_scores(s_flat, n + 1);
      const std::uint32_t v_panels = tc::shared_address(v_tiles + (n % kStages) * kTileBytes);
#pragma unroll
      for (int kk = 0; kk < kKeys / 16; ++kk) {
        const std::uint64_t b = tc::wgmma_descriptor(v_panels + kk * 16 * 128, kKeys * 128, 1024);
        ptx::wgmma_bf16_rs<kHeadDim>(o_flat, p[kk], b, 1);
      }
      tc::wgmma_commit();
      end_turn();
      if (more) {
        tc::wgmma_wait<1>();  // S(t + 1) has landed: K(t + 1)'s stage is free
        tc::wgmma_hold(s_flat);
        release(&k_empty[(n + 1) % kStages]);
        if (kEarlyQRelease && t + 2 == block.key_tiles) release(&q_empty[q]);  // the last S
        float rescale[2];
        const bool rescale_needed = softmax_of(s_flat, t + 1, rescale);
        tc::wgmma_wait<0>();
        tc::wgmma_hold(o_flat);
        wgmma_hold_operand(p);
        release(&v_empty[n % kStages]);
        if (rescale_needed) rescale_output(o, rescale);
        pack_probabilities<kKeys>(s_flat, p);
      } else {
        tc::wgmma_wait<0>();
        tc::wgmma_hold(o_flat);
        release(&v_empty[n % kStages]);
      }
    }
    if (!kEarlyQRelease) release(&q_empty[q]);  // every S has landed: its Q tile may be refilled
    ring += block.key_tiles;
    store_output(o, row_sum, rows, args.o + block.head_offset, kHeadDim, sequence);
  }
  if constexpr (kPingPong) {
    if (consumer == 0) take_turn();  // consumer 1's last turn given: barrier 1 left balanced
  }
#endif
}
// [flash_wgmma_ws]

}  // namespace
}  // namespace lab13
