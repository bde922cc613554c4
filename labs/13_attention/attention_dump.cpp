#include "attention_dump.h"

#include <fstream>
#include <stdexcept>

namespace lab13 {

namespace {

void write_file(const std::filesystem::path& path, const void* data, std::size_t bytes) {
  std::ofstream file(path, std::ios::binary);
  file.write(static_cast<const char*>(data), static_cast<std::streamsize>(bytes));
  if (!file) throw std::runtime_error("--dump-dir: cannot write " + path.string());
}

}  // namespace

AttentionDump::AttentionDump(std::filesystem::path dir, const AttentionVerifier& verifier,
                             const AttentionShape& shape)
    : dir_(std::move(dir)),
      stem_("attention_" + shape.label()),
      shape_(shape),
      scale_(verifier.scale()) {
  std::filesystem::create_directories(dir_);
  const std::size_t bytes = shape.elements() * sizeof(__nv_bfloat16);
  write_file(dir_ / (stem_ + ".q.bf16"), verifier.host_q().data(), bytes);
  write_file(dir_ / (stem_ + ".k.bf16"), verifier.host_k().data(), bytes);
  write_file(dir_ / (stem_ + ".v.bf16"), verifier.host_v().data(), bytes);
  write_description();
}

void AttentionDump::add_output(const std::string& variant,
                               const std::vector<__nv_bfloat16>& output) {
  const std::string file = stem_ + ".o." + variant + ".bf16";
  write_file(dir_ / file, output.data(), output.size() * sizeof(__nv_bfloat16));
  outputs_.emplace_back(variant, file);
  write_description();
}

void AttentionDump::write_description() const {
  std::ofstream json(dir_ / (stem_ + ".json"));
  json.precision(9);  // the FP32 scale exactly
  json << "{\"batch\": " << shape_.batch << ", \"heads\": " << shape_.heads
       << ", \"sequence\": " << shape_.sequence << ", \"head_dim\": " << shape_.head_dim
       << ", \"causal\": " << (shape_.causal ? "true" : "false") << ", \"scale\": " << scale_
       << ",\n \"inputs\": {\"q\": \"" << stem_ << ".q.bf16\", \"k\": \"" << stem_
       << ".k.bf16\", \"v\": \"" << stem_ << ".v.bf16\"},\n \"outputs\": {";
  for (std::size_t i = 0; i < outputs_.size(); ++i) {
    json << (i == 0 ? "" : ", ") << "\"" << outputs_[i].first << "\": \"" << outputs_[i].second
         << "\"";
  }
  json << "}}\n";
  if (!json) throw std::runtime_error("--dump-dir: cannot write " + (dir_ / stem_).string());
}

}  // namespace lab13
