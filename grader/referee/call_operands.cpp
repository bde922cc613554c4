#include "grader/referee/call_operands.h"

#include <algorithm>
#include <numeric>

namespace grader::referee {

void CallOperands::input(const void* pointer, std::int64_t bytes) {
  operands_.push_back({pointer, bytes, false, ""});
}

void CallOperands::output(void* pointer, std::int64_t bytes, const std::string& what) {
  operands_.push_back({pointer, bytes, true, what});
}

std::vector<remote::Operand> CallOperands::place() {
  const std::size_t count = operands_.size();
  std::vector<std::int64_t> ids(count, kNullBuffer), offsets(count, 0);
  auto address = [this](std::size_t i) {
    return reinterpret_cast<std::uintptr_t>(operands_[i].pointer);
  };
  // The operands with memory, by address; the others pass nullptr or the dummy buffer.
  std::vector<std::size_t> order;
  for (std::size_t i = 0; i < count; ++i) {
    if (operands_[i].pointer == nullptr) continue;
    if (operands_[i].bytes < 0) {
      ids[i] = kDummyBuffer;
      continue;
    }
    order.push_back(i);
  }
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t a, std::size_t b) { return address(a) < address(b); });
  // Each run of operands that overlap one another becomes one buffer, spanning all of them.
  for (std::size_t first = 0; first < order.size();) {
    const std::uintptr_t low = address(order[first]);
    std::uintptr_t high = low + static_cast<std::uintptr_t>(operands_[order[first]].bytes);
    bool written = operands_[order[first]].written;
    std::string what = operands_[order[first]].what;
    std::size_t end = first + 1;
    for (; end < order.size() && address(order[end]) < high; ++end) {
      const Operand& next = operands_[order[end]];
      high = std::max(high, address(order[end]) + static_cast<std::uintptr_t>(next.bytes));
      written = written || next.written;
      if (next.written) what = what.empty() ? next.what : what + " and " + next.what;
    }
    const auto span = static_cast<std::int64_t>(high - low);
    void* start = reinterpret_cast<void*>(low);
    const std::int64_t id =
        written ? session_.output(start, span, 1, what) : session_.input(start, span, 1);
    for (std::size_t j = first; j < end; ++j) {
      ids[order[j]] = id;
      offsets[order[j]] = static_cast<std::int64_t>(address(order[j]) - low);
    }
    first = end;
  }
  std::vector<remote::Operand> placed;
  for (std::size_t i = 0; i < count; ++i) placed.push_back({ids[i], offsets[i]});
  return placed;
}

}  // namespace grader::referee
