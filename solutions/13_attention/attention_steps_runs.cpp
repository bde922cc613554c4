#include "attention_steps_runs.h"

#include "attention_steps.h"
#include "common/cli.h"
#include "common/device_buffer.h"
#include "common/event_timer.h"
#include "common/random_fill.h"

#include <algorithm>
#include <cmath>
#include <iostream>

namespace lab13::steps {

namespace {

std::string unavailable(const AttentionVariant& v) {
  return v.unavailable == nullptr ? std::string() : v.unavailable();
}

}  // namespace

std::vector<Candidate> candidates(const std::vector<std::string>& names) {
  std::vector<Candidate> all;
  for (const AttentionVariant& v : attention_variants())
    if (std::string(v.name).rfind("flash_", 0) == 0) all.push_back({&v, ""});
  for (const AttentionStep& step : attention_steps()) all.push_back({&step.variant, step.improves});
  std::vector<Candidate> chosen;
  for (const Candidate& c : all) {
    if (names.empty() || std::find(names.begin(), names.end(), c.variant->name) != names.end())
      chosen.push_back(c);
  }
  for (const std::string& name : names) {
    if (std::none_of(all.begin(), all.end(),
                     [&](const Candidate& c) { return name == c.variant->name; })) {
      std::string known;
      for (const Candidate& c : all)
        known += (known.empty() ? "" : ", ") + std::string(c.variant->name);
      throw cudalabs::FlagError("--variant: unknown variant '" + name + "' (known: " + known + ")");
    }
  }
  return chosen;
}

std::vector<Row> check_rows(const std::vector<Candidate>& all, AttentionVerifier& timed,
                            const AttentionShape& shape, std::uint64_t seed, int& failures) {
  AttentionShape odd{1, 3, 1000, shape.head_dim, shape.causal};
  AttentionVerifier odd_verifier(odd, cudalabs::derive_seed(seed, "steps odd " + odd.label()),
                                 false);
  std::vector<Row> rows;
  for (const Candidate& c : all) {
    Row row{&c, "PASS", {}, {}};
    if (const std::string why = unavailable(*c.variant); !why.empty()) {
      row.check = "skipped: " + why;
    } else {
      for (AttentionVerifier* verifier : {&timed, &odd_verifier}) {
        const CheckReport report = verifier->check(*c.variant);
        std::cout << "  " << report.message << "\n";
        if (report.outcome != cudalabs::CheckOutcome::kPassed) {
          row.check = "FAIL";
          ++failures;
        }
      }
    }
    rows.push_back(row);
  }
  return rows;
}

void time_and_recheck(std::vector<Row>& rows, const AttentionShape& shape,
                      AttentionVerifier& verifier, int warmups, int repetitions, double settle_ms,
                      std::uint64_t seed, int& failures) {
  cudalabs::DeviceBuffer<__nv_bfloat16> output(shape.elements());
  std::vector<Row*> timed;
  for (Row& row : rows)
    if (row.check == "PASS") timed.push_back(&row);
  if (timed.empty()) return;
  const AttentionArgs args{shape,         verifier.q(),     verifier.k(), verifier.v(),
                           output.data(), verifier.scale(), nullptr,      0};
  const auto launch = [&](const Row& row, cudaStream_t stream) {
    row.candidate->variant->launch(args, stream);
  };
  // A measurement is `batch` launches between two events (about 2 ms of work).
  const double estimate_ms = cudalabs::median(cudalabs::time_each_run_ms(
      [&](cudaStream_t s, int) { launch(*timed.front(), s); }, warmups, 3));
  const int batch = static_cast<int>(std::clamp(2.0 / estimate_ms, 1.0, 50.0));
  const auto measure = [&](const Row& row, int untimed) {
    const auto runs = [&](cudaStream_t s, int) {
      for (int i = 0; i < batch; ++i) launch(row, s);
    };
    return cudalabs::time_each_run_ms(runs, untimed, 1).front() / batch;
  };
  std::vector<int> settling;  // untimed measurements before each timed one, per row
  for (Row* row : timed) {
    const double measurement_ms = measure(*row, warmups) * batch;
    settling.push_back(static_cast<int>(std::ceil(settle_ms / measurement_ms)));
  }
  for (int round = 0; round < repetitions; ++round) {
    for (std::size_t i = 0; i < timed.size(); ++i) {
      const std::size_t r = (i + round) % timed.size();
      timed[r]->ms.push_back(measure(*timed[r], settling[r]));
    }
  }
  for (Row* row : timed) {
    const std::string name = row->candidate->variant->name;
    const CheckReport report = verifier.check_in_timed_buffers(
        *row->candidate->variant, args,
        cudalabs::derive_seed(seed, "steps recheck " + name + " " + shape.label()));
    const bool passed = report.outcome == cudalabs::CheckOutcome::kPassed;
    row->after_timing = cudalabs::Recheck{passed, report.message};
    if (!passed) {
      row->check = "FAIL after timing";
      ++failures;
    }
  }
}

}  // namespace lab13::steps
