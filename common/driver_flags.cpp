#include "common/driver_flags.h"

#include "common/cli.h"
#include "common/random_fill.h"

namespace cudalabs {

void add_driver_flags(CLI::App& app, DriverOptions& options, const DriverFlags& flags) {
  const std::string each = flags.checked;
  if (flags.variant_flag) {
    app.add_option("--variant", options.variants, "Variant to run (repeatable; default: all)")
        ->type_name("NAME");
  }
  add_integer_flag(app, "--repetitions", options.timing.repetitions, 1, 1000,
                   "Timed repetitions per " + each + "; tables show their median");
  add_number_flag(app, "--min-time", options.timing.min_time_s, 0.0, 60.0,
                  "Minimum timed seconds per repetition");
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

std::uint64_t choose_seed(const std::string& seed_text) {
  if (seed_text.empty()) return run_seed();
  return static_cast<std::uint64_t>(parse_integer_flag("--seed", seed_text, 0, kMaxSeed));
}

}  // namespace cudalabs
