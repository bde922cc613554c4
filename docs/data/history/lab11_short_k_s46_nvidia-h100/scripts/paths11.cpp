// Which path lab 11's `best` takes, and the model's time for it, at tightly packed shapes on an
// H100's 132 SMs, on the host alone (no GPU): the choice of launch.cuh's launch_best, made from
// best_plan.h's functions. The clusters the GPU holds at once (ClusterRoom) are taken as 132 /
// blocks for clusters of up to 8 blocks and none past 8, where the GPU would be asked.
//
//   g++ -std=c++20 -I TREE/labs/11_tensor_cores -I TREE -I BUILD/suite-view -I CUDA/include \
//       paths11.cpp -o paths11
//   paths11 MxNxK ...   ->   "MxNxK PATH PREDICTED_US | PLAN" a line
//
// Add -DPATHS11_C_BYTES for a tree whose choice also weighs C's rows (session 48's
// history/lab11_short_k_s47_nvidia-h100/scripts/unaligned_c.patch): tightly packed, they are off
// 16 bytes where N % 4 != 0.
#include "best_plan.h"

#include <cstdio>

#ifdef PATHS11_C_BYTES
#define AND_C_BYTES(bytes) , bytes
#else
#define AND_C_BYTES(bytes)
#endif

using namespace lab11;

int main(int argc, char** argv) {
  const int sms = 132;
  ClusterRoom room;
  for (int blocks = 2; blocks <= kMaxClusterSlices; ++blocks)
    room.at_once[blocks] = blocks <= 8 ? sms / blocks : 0;
  for (int i = 1; i < argc; ++i) {
    cudalabs::GemmShape s{};
    if (std::sscanf(argv[i], "%dx%dx%d", &s.m, &s.n, &s.k) != 3) return 1;
    // tightly packed: A's rows 16-byte aligned where K % 8 == 0, B's where N % 8 == 0
    const bool copy_a = s.k % 8 != 0, copy_b = s.n % 8 != 0;
    [[maybe_unused]] const int c_bytes = s.n % 4 == 0 ? 16 : s.n % 2 == 0 ? 8 : 4;
    const ShortKCopies copies{copy_a ? (s.k % 2 == 0 ? 4 : 2) : 16,
                              copy_b ? (s.n % 2 == 0 ? 4 : 2) : 16};
    const SpecializedPlan plan = plan_best(s, sms);
    const ShortKPlan short_k = plan_short_k(s, copies, sms, room);
    const FewColumnsPlan few_columns =
        plan_few_columns(s, sms, few_columns_loads(s, copy_a, copy_b));
    const char* path = nullptr;
    double us = 0.0;
    if (few_columns_fit(s) && few_columns_pays(s, plan, few_columns, copy_a, copy_b)) {
      path = "few_columns";
      us = few_columns.predicted_us;
    } else if (few_rows_fit(s) && few_rows_pays(s, plan, plan_few_rows(s, sms), short_k,
                                                copies AND_C_BYTES(c_bytes), sms)) {
      path = "few_rows";
      us = plan_few_rows(s, sms).predicted_us;
    } else if (short_k_pays(s, plan, short_k, copies AND_C_BYTES(c_bytes), sms)) {
      path = short_k.sliced() ? "short_k_sliced" : "short_k";
      us = short_k.predicted_us;
    } else {
      path = one_launch_rung_pays(s, plan, copy_a, copy_b, sms) ? "wgmma_rung"
             : copy_a || copy_b                                 ? "tiles_copied"
                                                                : "tiles";
      us = tma_path_us(s, plan, copy_a, copy_b AND_C_BYTES(c_bytes), sms);
    }
    std::printf("%s %s %.2f | %s\n", argv[i], path, us, plan.describe().c_str());
  }
}
