// The solution's causal block order (solutions/13_attention/heaviest_first.h, flash_wgmma_ws_lpt),
// tested on the CPU: every (query tile, head) of the grid given to exactly one block, the heads of
// a section (the last one short) heaviest tile first, the section sizes against hand-worked L2
// budgets, and the point of it all: a greedy list schedule of the blocks (what the GPU's block
// dispatch does) ends sooner than with the tiles heaviest first head after head.
#include "solutions/13_attention/heaviest_first.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <functional>
#include <queue>
#include <vector>

namespace {

using lab13::heads_per_section;
using lab13::heaviest_first;
using lab13::ScheduledTile;

TEST(HeaviestFirst, EveryTileOfEveryHeadOnceAndSectionsHeaviestFirst) {
  for (int query_tiles : {1, 2, 7, 32}) {
    for (int heads : {1, 2, 3, 7, 64}) {
      for (int section_heads : {1, 2, 3, 16, 64}) {
        if (section_heads > heads) continue;
        SCOPED_TRACE(::testing::Message() << query_tiles << " tiles, " << heads << " heads, "
                                          << section_heads << " a section");
        std::vector<int> seen(static_cast<std::size_t>(query_tiles) * heads, 0);
        int previous_section = 0, previous_tile = query_tiles - 1;
        for (int index = 0; index < query_tiles * heads; ++index) {
          const ScheduledTile work = heaviest_first(index, query_tiles, heads, section_heads);
          ASSERT_GE(work.query_tile, 0);
          ASSERT_LT(work.query_tile, query_tiles);
          ASSERT_GE(work.head, 0);
          ASSERT_LT(work.head, heads);
          ++seen[static_cast<std::size_t>(work.head) * query_tiles + work.query_tile];
          const int section = work.head / section_heads;
          ASSERT_GE(section, previous_section) << "index " << index << ": a section revisited";
          if (section == previous_section) {
            EXPECT_LE(work.query_tile, previous_tile)
                << "index " << index << ": a lighter tile first";
          } else {
            EXPECT_EQ(work.query_tile, query_tiles - 1) << "index " << index;
          }
          previous_section = section;
          previous_tile = work.query_tile;
        }
        EXPECT_TRUE(std::all_of(seen.begin(), seen.end(), [](int n) { return n == 1; }));
      }
    }
  }
}

TEST(HeaviestFirst, SectionsOfHandWorkedL2Budgets) {
  // K and V of 4096 rows of 128 BF16: 2 MiB a head, 16 in 32 MiB.
  EXPECT_EQ(heads_per_section(4096, 128, 64), 16);
  EXPECT_EQ(heads_per_section(16384, 128, 64), 4);
  EXPECT_EQ(heads_per_section(1024, 64, 64), 64);  // 128 fit: all of them
  EXPECT_EQ(heads_per_section(1025, 128, 2), 2);
  EXPECT_EQ(heads_per_section(1 << 20, 128, 8), 1);  // 512 MiB a head: one at a time
}

// The end of a greedy list schedule of `work` (in that order) on `processors`, one unit of start-up
// a block: each block on the first processor free, as the GPU starts blocks.
double greedy_makespan(const std::vector<int>& work, int processors) {
  std::priority_queue<double, std::vector<double>, std::greater<>> free_at;
  for (int p = 0; p < processors; ++p) free_at.push(0.0);
  double end = 0.0;
  for (int w : work) {
    const double start = free_at.top();
    free_at.pop();
    free_at.push(start + w + 1.0);
    end = std::max(end, start + w + 1.0);
  }
  return end;
}

TEST(HeaviestFirst, EndsSoonerThanHeadAfterHeadOnAnH100sSms) {
  for (int query_tiles : {8, 32}) {  // b4 h16 at sequence 1024 and 4096, 128 queries a tile
    constexpr int kHeads = 64, kSms = 132;
    std::vector<int> head_after_head, lpt;
    for (int head = 0; head < kHeads; ++head) {
      for (int x = 0; x < query_tiles; ++x) head_after_head.push_back(query_tiles - x);
    }
    const int section_heads = heads_per_section(query_tiles * 128, 128, kHeads);
    for (int index = 0; index < query_tiles * kHeads; ++index) {
      lpt.push_back(heaviest_first(index, query_tiles, kHeads, section_heads).query_tile + 1);
    }
    EXPECT_LT(greedy_makespan(lpt, kSms), 0.96 * greedy_makespan(head_after_head, kSms))
        << query_tiles << " query tiles";
  }
}

}  // namespace
