#include "common/driver_flags.h"

#include "common/cli.h"
#include "common/random_fill.h"

#include <algorithm>

namespace cudalabs {

void add_driver_flags(CLI::App& app, DriverOptions& options, const DriverFlags& flags) {
  const std::string each = flags.checked;
  if (flags.variant_flag) {
    app.add_option("--variant", options.variants, "Variant to run (repeatable; default: all)")
        ->type_name("NAME");
  }
  if (!flags.number_flag.empty()) {
    app.add_option_function<std::vector<std::string>>(
           flags.number_flag,
           [&options, flag = flags.number_flag,
            numbers = flags.numbers](const std::vector<std::string>& texts) {
             for (const std::string& text : texts)
               options.numbers.push_back(parse_number_choice(flag, text, numbers));
           },
           flags.number_help)
        ->type_name(kIntegerValueName);
  }
  add_integer_flag(app, "--repetitions", options.timing.repetitions, 1, 1000,
                   "Timed repetitions per " + each + "; tables show their median");
  if (flags.min_time_flag) {
    add_number_flag(app, "--min-time", options.timing.min_time_s, 0.0, 60.0,
                    "Minimum timed seconds per repetition");
  }
  if (flags.warmups_flag) {
    add_integer_flag(app, "--warmups", options.timing.warmups, 0, 1000,
                     "Untimed launches before each repetition");
  }
  if (flags.seed_flag) {
    app.add_option("--seed", options.seed_text,
                   "Seed of the random inputs (default: CUDALABS_SEED or fresh)")
        ->type_name("SEED");
  }
  app.add_flag("--verify-only", options.verify_only, "Check every " + each + ", time nothing");
  if (flags.list_flag) app.add_flag("--list", options.list, "List the variants and exit");
  app.add_option("--results-dir", options.results_dir,
                 "Write the Google Benchmark JSON to DIR/" + flags.lab_id + "_<device>.json")
      ->type_name("DIR");
  if (flags.results_tag_flag) {
    app.add_option("--results-tag", options.results_tag,
                   "Name the JSON DIR/" + flags.lab_id + "_<TAG>_<device>.json instead")
        ->type_name("TAG");
  }
}

int parse_number_choice(const std::string& flag, const std::string& text,
                        const std::vector<int>& numbers) {
  const int number =
      static_cast<int>(parse_integer_flag(flag, text, numbers.front(), numbers.back()));
  if (std::find(numbers.begin(), numbers.end(), number) != numbers.end()) return number;
  std::string expected;
  for (std::size_t i = 0; i < numbers.size(); ++i) {
    expected += (i == 0                    ? ""
                 : i + 1 == numbers.size() ? " or "
                                           : ", ") +
                std::to_string(numbers[i]);
  }
  throw FlagError(flag + ": invalid value '" + text + "' (expected " + expected + ")");
}

std::uint64_t choose_seed(const std::string& seed_text) {
  if (seed_text.empty()) return run_seed();
  return static_cast<std::uint64_t>(parse_integer_flag("--seed", seed_text, 0, kMaxSeed));
}

}  // namespace cudalabs
