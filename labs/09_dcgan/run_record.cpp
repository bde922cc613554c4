#include "labs/09_dcgan/run_record.h"

#include "common/json_record.h"

#include <nlohmann/json.hpp>

namespace lab09 {

void write_run_record(const std::string& path, const EndToEndRecord& end_to_end,
                      const std::vector<LayerRecord>& layers, int batch) {
  const double images_per_s = end_to_end.ms > 0 ? end_to_end.num / end_to_end.ms * 1e3 : 0.0;
  nlohmann::json record{
      {"end_to_end",
       {{"name", std::string(end_to_end.variant.rfind("dcgan_", 0) == 0 ? "lab11" : "lab09") +
                     "/end_to_end/" + end_to_end.variant + "/n" + std::to_string(end_to_end.num)},
        {"variant", end_to_end.variant},
        {"num", end_to_end.num},
        {"batch", end_to_end.batch},
        {"real_time", end_to_end.ms},
        {"time_unit", "ms"},
        {"images_per_s", images_per_s},
        {"repetitions", end_to_end.repetitions}}},
      {"layers", nlohmann::json::object()}};
  for (const LayerRecord& layer : layers) {
    std::vector<double> gflops;
    for (int l = 0; l < 5; ++l) gflops.push_back(layer.flops[l] / layer.ms[l] * 1e-6);
    record["layers"][layer.variant] = {
        {"methods", layer.methods}, {"batch", batch}, {"ms", layer.ms}, {"gflops", gflops}};
  }
  cudalabs::write_json_file(path, record);
}

}  // namespace lab09
