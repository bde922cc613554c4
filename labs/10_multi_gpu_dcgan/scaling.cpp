#include "labs/10_multi_gpu_dcgan/scaling.h"

#include "common/cli.h"
#include "common/dcgan_inputs.h"
#include "common/device_info.h"
#include "common/json_record.h"
#include "common/random_fill.h"
#include "common/text_table.h"

#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <set>
#include <sstream>
#include <stdexcept>

namespace lab10 {

std::vector<int> parse_int_list(const std::string& flag, const std::string& text, long long min,
                                long long max) {
  std::vector<int> values;
  std::stringstream items(text);
  std::string item;
  while (std::getline(items, item, ',')) {
    values.push_back(static_cast<int>(cudalabs::parse_integer_flag(flag, item, min, max)));
  }
  if (values.empty()) throw cudalabs::FlagError(flag + ": '" + text + "' names no value");
  return values;
}

std::vector<float> timed_latents(const ScalingTable& table, int count) {
  std::string unused;
  return cudalabs::dcgan::load_latents("", count, cudalabs::derive_seed(table.seed, "scaling"),
                                       unused)
      .values;
}

std::span<const float> refill_for_recheck(const ScalingTable& table, int num, int gpus,
                                          std::span<float> latents, std::span<float> images) {
  std::string unused;
  const std::string what = "recheck n" + std::to_string(num) + "x" + std::to_string(gpus);
  const cudalabs::dcgan::Latents fresh =
      cudalabs::dcgan::load_latents("", num, cudalabs::derive_seed(table.seed, what), unused);
  std::copy(fresh.values.begin(), fresh.values.end(), latents.begin());
  if (!images.empty()) {
    const std::span<float> timed =
        images.first(static_cast<std::size_t>(num) * cudalabs::dcgan::kImageFloats);
    std::fill(timed.begin(), timed.end(), std::nanf(""));
  }
  return latents.first(fresh.values.size());
}

cudalabs::HostTimedRun scaling_run(const std::string& flavour, int num, int gpus,
                                   std::function<double()> run,
                                   std::function<cudalabs::Recheck()> recheck) {
  return {"lab10/" + flavour + "/n" + std::to_string(num) + "x" + std::to_string(gpus) + "g",
          std::move(run),
          {{"num", num}, {"gpus", gpus}},
          {{"images_per_s", num}},
          std::move(recheck)};
}

std::string scaling_table(const std::vector<cudalabs::HostMedian>& cells) {
  std::set<int> nums, gpu_counts;
  std::map<std::pair<int, int>, double> seconds;
  for (const cudalabs::HostMedian& cell : cells) {
    const int num = static_cast<int>(cell.fields.at("num")),
              gpus = static_cast<int>(cell.fields.at("gpus"));
    nums.insert(num);
    gpu_counts.insert(gpus);
    seconds[{num, gpus}] = cell.seconds;
  }
  std::vector<cudalabs::TextTable::Column> columns{{"num_to_gen", true}};
  for (int g : gpu_counts) {
    const std::string suffix = " " + std::to_string(g) + (g == 1 ? " GPU" : " GPUs");
    columns.push_back({"s," + suffix, true});
    columns.push_back({"images/s", true});
    if (g > 1) columns.push_back({"efficiency", true});
  }
  cudalabs::TextTable table(columns);
  for (int num : nums) {
    std::vector<std::string> row{std::to_string(num)};
    const auto one = seconds.find({num, 1});
    for (int g : gpu_counts) {
      const auto it = seconds.find({num, g});
      if (it == seconds.end()) {
        row.insert(row.end(), g > 1 ? 3 : 2, "-");
        continue;
      }
      row.push_back(cudalabs::TextTable::number(it->second, 4));
      row.push_back(cudalabs::TextTable::number(num / it->second, 0));
      if (g > 1) {
        row.push_back(one == seconds.end()
                          ? "-"
                          : cudalabs::TextTable::number(one->second / it->second / g * 100.0, 0) +
                                " %");
      }
    }
    table.add_row(row);
  }
  std::ostringstream out;
  table.print(out);
  return out.str();
}

std::map<std::string, std::string> record_context(int argc, char** argv,
                                                  const std::vector<int>& devices,
                                                  const std::string& git_commit) {
  std::map<std::string, std::string> context;
  context["command"] = cudalabs::recorded_command(argc, argv);
  context["git_commit"] = git_commit;
  context["date"] = cudalabs::utc_timestamp();
  std::string names;
  for (std::size_t i = 0; i < devices.size(); ++i) {
    cudaDeviceProp properties{};
    if (cudaGetDeviceProperties(&properties, devices[i]) == cudaSuccess) {
      names += (i ? ", " : "") + std::string(properties.name);
      if (i == 0) context["device"] = properties.name;
    }
  }
  context["devices"] = names;
  context["gpus"] = std::to_string(devices.size());
  int driver = 0, runtime = 0;
  cudaDriverGetVersion(&driver);
  cudaRuntimeGetVersion(&runtime);
  context["driver"] = cudalabs::DeviceInfo::version_text(driver);
  context["cuda_runtime"] = cudalabs::DeviceInfo::version_text(runtime);
  return context;
}

}  // namespace lab10
