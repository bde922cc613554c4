#include "common/driver_record.h"

#include "common/json_record.h"

#include <filesystem>
#include <fstream>
#include <iterator>
#include <stdexcept>
#include <string_view>

namespace cudalabs {

std::vector<std::string> record_output_args(const std::string& results_dir,
                                            const std::string& lab_id, const std::string& tag,
                                            const std::string& device_slug) {
  if (results_dir.empty()) return {};
  std::filesystem::create_directories(results_dir);
  const std::string tag_part = tag.empty() ? "" : tag + "_";
  return {"--benchmark_out=" + results_dir + "/" + lab_id + "_" + tag_part + device_slug + ".json",
          "--benchmark_out_format=json"};
}

std::string record_file_of(const std::vector<std::string>& benchmark_args) {
  const std::string out = "--benchmark_out=", format = "--benchmark_out_format=";
  std::string file;
  bool json = true;
  for (const std::string& arg : benchmark_args) {
    if (arg.rfind(out, 0) == 0) file = arg.substr(out.size());
    if (arg.rfind(format, 0) == 0) json = arg == format + "json";
  }
  return json ? file : "";
}

nlohmann::json rechecks_json(const std::map<std::string, Recheck>& rechecks) {
  nlohmann::json entries = nlohmann::json::object();
  for (const auto& [name, recheck] : rechecks)
    entries[name] = {{"passed", recheck.passed}, {"message", recheck.message}};
  return entries;
}

std::string with_non_finite_as_null(const std::string& text) {
  static const char* const kWords[] = {"-Infinity", "Infinity", "-NaN", "NaN"};
  std::string out;
  out.reserve(text.size());
  bool in_string = false;
  for (std::size_t i = 0; i < text.size();) {
    const char c = text[i];
    if (in_string) {
      out += c;
      if (c == '\\' && i + 1 < text.size())
        out += text[++i];
      else if (c == '"')
        in_string = false;
      ++i;
      continue;
    }
    if (c == '"') in_string = true;
    bool replaced = false;
    for (const char* word : kWords) {
      const std::string_view w(word);
      if (text.compare(i, w.size(), w) == 0) {
        out += "null";
        i += w.size();
        replaced = true;
        break;
      }
    }
    if (!replaced) out += text[i++];
  }
  return out;
}

void add_rechecks_to_record(const std::string& path,
                            const std::map<std::string, Recheck>& rechecks) {
  std::ifstream in(path);
  // Google Benchmark writes a counter's undefined statistic (the cv of a counter whose mean is 0)
  // as a bare NaN, which JSON has no word for.
  const std::string text =
      in.is_open() ? std::string(std::istreambuf_iterator<char>(in), {}) : std::string();
  const nlohmann::json parsed =
      in.is_open() ? nlohmann::json::parse(with_non_finite_as_null(text), nullptr, false)
                   : nlohmann::json();
  if (parsed.is_discarded() || !parsed.is_object())
    throw std::runtime_error("record " + path + ": cannot be read as JSON");
  nlohmann::json record = parsed;
  record["rechecks"] = rechecks_json(rechecks);
  write_json_file(path, record);
}

}  // namespace cudalabs
