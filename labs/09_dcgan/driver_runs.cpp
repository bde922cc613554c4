#include "labs/09_dcgan/driver_runs.h"

#include "common/cuda_check.h"
#include "common/dcgan_inputs.h"
#include "common/poison.h"
#include "common/text_table.h"
#include "common/timeline.h"
#include "labs/09_dcgan/pipeline.h"

#include <algorithm>
#include <cmath>
#include <memory>
#include <numeric>

namespace lab09 {
namespace {

namespace dcgan = cudalabs::dcgan;
using cudalabs::ComputePrecision;
using dcgan::kImageFloats;

// lab09/<variant>/b<batch>, or lab11/dcgan_<precision>/b<batch> for lab 11's layers.
std::string batch_name(const DcganVariant& v, int batch) {
  const char* lab = v.precision == ComputePrecision::kFp32 ? "lab09/" : "lab11/";
  return lab + std::string(v.name) + "/b" + std::to_string(batch);
}

double batch_flops(int batch) {
  const std::array<double, 5> flops = layer_flops(batch);
  return std::accumulate(flops.begin(), flops.end(), 0.0);
}

// One run of `v` on the session's first batch, images and activations poisoned first, the images
// downloaded into `host`.
void run_into_host(Session& session, const DcganVariant& v,
                   const std::array<TconvMethod, 4>& methods, int batch, std::vector<float>& host) {
  session.generator.poison_activations();
  cudalabs::poison_device(session.images.data(), session.images.bytes());
  session.generator.run(v, methods, session.latents.data(), batch, session.images.data(), nullptr);
  CUDA_CHECK(cudaDeviceSynchronize());
  host.resize(static_cast<std::size_t>(batch) * kImageFloats);
  session.images.copy_to(host);
}

}  // namespace

Session::Session(const Inputs& in, const PrecisionBackend& backend)
    : generator(in.weights, in.batch),
      latents(static_cast<std::size_t>(in.batch) * 100),
      images(static_cast<std::size_t>(in.batch) * kImageFloats) {
  latents.copy_from(std::span<const float>(in.latents.values).first(latents.size()));
  if (backend.make) generator.use_precision_layers(backend.make(in.weights, in.batch));
}

std::string methods_text(const std::array<TconvMethod, 4>& methods) {
  std::string text;
  for (TconvMethod m : methods) text += std::string(text.empty() ? "" : ",") + method_name(m);
  return text;
}

std::map<std::string, Checked> check_variants(std::ostream& out, Session& session,
                                              const std::vector<const DcganVariant*>& selected,
                                              const Inputs& in, const std::vector<int>& picks,
                                              const std::vector<double>& reference,
                                              ComputePrecision precision) {
  out << "check: images";
  for (int p : picks) out << " " << p;
  out << " of the first batch against the CPU reference generator (double)\n";
  std::map<std::string, Checked> checked;
  std::vector<float> host;
  for (const DcganVariant* v : selected) {
    std::string report;
    Checked& c = checked[v->name];
    c.methods = session.generator.methods_for(*v, in.batch, nullptr, &report);
    if (!report.empty()) out << "  " << report << "\n";
    run_into_host(session, *v, c.methods, in.batch, host);
    c.check = dcgan::check_images(host, picks, reference, v->precision);
    out << "  " << v->name << ": " << c.check.message << "\n";
  }
  // Every image of the first batch of each reduced-precision variant against the FP32 sub-pixel
  // variant's, under that precision's tolerance: a check of all images, not a sample.
  const auto fp32 = checked.find("subpixel");
  if (precision == ComputePrecision::kFp32 || fp32 == checked.end() || !fp32->second.check.passed)
    return checked;
  run_into_host(session, find_variant("subpixel"), fp32->second.methods, in.batch, host);
  const std::vector<double> fp32_images(host.begin(), host.end());
  std::vector<int> all(static_cast<std::size_t>(in.batch));
  std::iota(all.begin(), all.end(), 0);
  for (const DcganVariant* v : selected) {
    if (v->precision == ComputePrecision::kFp32 || !checked.at(v->name).check.passed) continue;
    run_into_host(session, *v, checked.at(v->name).methods, in.batch, host);
    const dcgan::ImageCheck check = dcgan::check_images(host, all, fp32_images, v->precision);
    out << "  " << v->name << " against subpixel (FP32), all " << in.batch
        << " images: " << check.message << "\n";
    if (!check.passed) checked.at(v->name).check = check;
  }
  return checked;
}

void add_timed_runs(cudalabs::LabDriver& driver, Session& session,
                    const std::vector<const DcganVariant*>& selected,
                    const std::map<std::string, Checked>& checked, const Inputs& in,
                    const std::vector<int>& picks) {
  const int batch = in.batch;
  const double total_flops = batch_flops(batch);
  // The recheck's fresh latents and their reference images, drawn once (at the first recheck)
  // for every variant.
  struct Fresh {
    std::vector<float> latents;
    std::vector<double> reference;
  };
  const auto fresh = std::make_shared<Fresh>();
  const std::uint64_t seed = driver.seed_for("recheck latents");
  const dcgan::Weights* weights = &in.weights;
  for (const DcganVariant* v : selected) {
    if (!checked.at(v->name).check.passed) continue;
    const std::array<TconvMethod, 4> m = checked.at(v->name).methods;
    driver.add_timed(
        {batch_name(*v, batch),
         [&session, v, m, batch](cudaStream_t stream) {
           session.generator.run(*v, m, session.latents.data(), batch, session.images.data(),
                                 stream);
         },
         total_flops, 0.0,
         [total_flops, batch](benchmark::State& state) {
           if (state.counters.count("gflops"))
             state.counters["images_per_s"] = state.counters["gflops"] * 1e9 / total_flops * batch;
         },
         [&session, v, m, batch, picks, fresh, seed, weights] {
           if (fresh->latents.empty()) {
             std::string unused;
             fresh->latents = dcgan::load_latents("", batch, seed, unused).values;
             fresh->reference = dcgan::reference_images(*weights, fresh->latents, picks);
           }
           session.latents.copy_from(fresh->latents);
           std::vector<float> host;
           run_into_host(session, *v, m, batch, host);
           const dcgan::ImageCheck check =
               dcgan::check_images(host, picks, fresh->reference, v->precision);
           return cudalabs::Recheck{check.passed, "timed buffers, fresh latents: " + check.message};
         }});
  }
}

std::vector<LayerRecord> time_layers(Session& session,
                                     const std::vector<const DcganVariant*>& selected,
                                     const std::map<std::string, Checked>& checked, int batch) {
  std::map<std::string, LayerRecord> by_name;  // sorted by name, as the table shows them
  for (const DcganVariant* v : selected) {
    const Checked& c = checked.at(v->name);
    if (!c.check.passed) continue;
    std::vector<LayerTimes> runs(5);
    for (LayerTimes& t : runs) {
      session.generator.run(*v, c.methods, session.latents.data(), batch, session.images.data(),
                            nullptr, &t);
    }
    LayerRecord& record = by_name[v->name];
    record = {v->name, methods_text(c.methods), {}, layer_flops(batch)};
    for (int l = 0; l < 5; ++l) {
      std::vector<double> times;
      for (const LayerTimes& t : runs) times.push_back(t[l]);
      std::sort(times.begin(), times.end());
      record.ms[l] = static_cast<float>(times[times.size() / 2]);
    }
  }
  std::vector<LayerRecord> layers;
  for (auto& [name, record] : by_name) layers.push_back(std::move(record));
  return layers;
}

const DcganVariant* print_summary(const cudalabs::LabDriver& driver,
                                  const std::vector<const DcganVariant*>& selected,
                                  const std::map<std::string, Checked>& checked,
                                  const std::map<std::string, cudalabs::BenchmarkMedian>& medians,
                                  int batch) {
  const double total_flops = batch_flops(batch);
  cudalabs::TextTable summary({{"variant", false},
                               {"tconv1..4", false},
                               {"ms/batch", true},
                               {"images/s", true},
                               {"GFLOP/s", true},
                               {"check", false}});
  const DcganVariant* fastest = nullptr;
  double fastest_ms = 0.0;
  for (const DcganVariant* v : selected) {
    const Checked& c = checked.at(v->name);
    const std::string name = batch_name(*v, batch);
    const double ms = cudalabs::milliseconds_of(cudalabs::median_of(medians, name));
    const std::string verdict =
        c.check.passed ? "PASS" : (c.check.unwritten ? "not implemented yet" : "FAIL");
    summary.add_row({v->name, methods_text(c.methods), cudalabs::TextTable::number(ms, 3),
                     cudalabs::TextTable::number(batch / ms * 1e3, 0),
                     cudalabs::TextTable::number(total_flops / ms * 1e-6, 0),
                     driver.check_cell(verdict, name)});
    const bool timed = std::isfinite(ms);
    if (c.check.passed && (!fastest || !std::isfinite(fastest_ms) || (timed && ms < fastest_ms))) {
      fastest = v;
      fastest_ms = ms;
    }
  }
  driver.out() << "\nper batch of " << batch << " images (useful work "
               << cudalabs::TextTable::number(total_flops / batch * 1e-9, 3)
               << " GFLOP per image)\n";
  summary.print(driver.out());
  return fastest;
}

void print_layers(std::ostream& out, const std::vector<LayerRecord>& layers, int batch) {
  if (layers.empty()) return;
  const char* layer_names[] = {"linear+bn+relu", "tconv1 4x4x512->8x8x256", "tconv2 ->16x16x128",
                               "tconv3 ->32x32x64", "tconv4 ->64x64x3 +tanh"};
  std::vector<cudalabs::TextTable::Column> columns{{"layer", false}};
  for (const LayerRecord& layer : layers) {
    columns.push_back({layer.variant + " ms", true});
    columns.push_back({"GFLOP/s", true});
  }
  cudalabs::TextTable table(columns);
  for (int l = 0; l < 5; ++l) {
    std::vector<std::string> row{layer_names[l]};
    for (const LayerRecord& layer : layers) {
      row.push_back(cudalabs::TextTable::number(layer.ms[l], 3));
      row.push_back(cudalabs::TextTable::number(layer.flops[l] / layer.ms[l] * 1e-6, 0));
    }
    table.add_row(row);
  }
  out << "\nper layer (CUDA events around each layer, median of 5 runs, batch " << batch << ")\n";
  table.print(out);
}

EndToEndRecord run_end_to_end(std::ostream& out, Session& session, const DcganVariant& variant,
                              const std::array<TconvMethod, 4>& methods, const Inputs& in,
                              int repetitions, std::vector<float>& images,
                              const std::string& timeline_path) {
  Pipeline pipeline(session.generator);
  std::vector<double> seconds;
  pipeline.generate(variant, methods, in.latents.values, in.num, images);
  for (int r = 0; r < repetitions; ++r) {
    seconds.push_back(pipeline.generate(variant, methods, in.latents.values, in.num, images));
  }
  if (!timeline_path.empty()) {
    // One more run with the timing events on (they cost the timed runs nothing).
    cudalabs::Timeline timeline;
    const cudalabs::DeviceInfo device = cudalabs::current_device_info();
    pipeline.set_timeline(&timeline, 0, "GPU 0: " + device.name);
    pipeline.generate(variant, methods, in.latents.values, in.num, images);
    pipeline.set_timeline(nullptr, 0, "");
    timeline.write(timeline_path);
    out << "timeline: " << timeline.spans().size() << " spans of one end-to-end run ("
        << variant.name << ") in " << timeline_path << "\n";
  }
  EndToEndRecord record{variant.name, in.num, in.batch, 0.0, static_cast<int>(seconds.size())};
  if (seconds.empty()) return record;
  std::sort(seconds.begin(), seconds.end());
  const double median = seconds[seconds.size() / 2];
  out << "\nend to end (" << variant.name << ", batches of " << in.batch
      << ", pinned staging, copies overlapped): " << in.num << " images in "
      << cudalabs::TextTable::number(median * 1e3, 2)
      << " ms = " << cudalabs::TextTable::number(in.num / median, 0) << " images/s (median of "
      << seconds.size() << ")\n";
  record.ms = median * 1e3;
  return record;
}

}  // namespace lab09
