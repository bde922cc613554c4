// The DCGAN drivers' shared inputs and checks (common/dcgan_inputs.h, common/dcgan_check.h), on the
// CPU.
#include "common/cli.h"
#include "common/dcgan_check.h"
#include "common/dcgan_images.h"
#include "common/dcgan_inputs.h"
#include "common/reference_dcgan.h"

#include <gtest/gtest.h>
#include <CLI/CLI.hpp>

#include <cmath>
#include <filesystem>
#include <sstream>
#include <string>
#include <vector>

namespace {

namespace dcgan = cudalabs::dcgan;

TEST(DcganCheck, SpreadPicksCoverBothEndsWithoutRepeats) {
  EXPECT_EQ(dcgan::spread_picks(10, 4), (std::vector<int>{0, 3, 6, 9}));
  EXPECT_EQ(dcgan::spread_picks(1, 4), (std::vector<int>{0}));
  EXPECT_EQ(dcgan::spread_picks(3, 8), (std::vector<int>{0, 1, 2}));
}

TEST(DcganCheck, ReferenceImagesAreThoseOfThePickedLatents) {
  const dcgan::Weights weights = dcgan::default_weights(3);
  std::vector<float> latents(3 * dcgan::kLatent);
  for (std::size_t i = 0; i < latents.size(); ++i)
    latents[i] = std::sin(0.37f * static_cast<float>(i));
  const std::vector<double> picked = dcgan::reference_images(weights, latents, {2});
  const std::vector<double> all = dcgan::reference_generator(weights, latents, 3);
  ASSERT_EQ(picked.size(), dcgan::kImageFloats);
  for (std::size_t e = 0; e < picked.size(); ++e)
    ASSERT_EQ(picked[e], all[2 * dcgan::kImageFloats + e]);
}

TEST(DcganCheck, CheckImagesPassesWithinToleranceAndNamesFailures) {
  std::vector<double> reference(2 * dcgan::kImageFloats, 0.25);
  std::vector<float> images(3 * dcgan::kImageFloats, 0.25f);
  EXPECT_TRUE(dcgan::check_images(images, {0, 2}, reference).passed);
  images[2 * dcgan::kImageFloats + 5] = 0.26f;  // image 2, x 1, c 2
  const dcgan::ImageCheck wrong = dcgan::check_images(images, {0, 2}, reference);
  EXPECT_FALSE(wrong.passed);
  EXPECT_NE(wrong.message.find("at image 2 (y 0, x 1, c 2)"), std::string::npos) << wrong.message;
  std::vector<float> unwritten(images.size(), std::nanf(""));
  const dcgan::ImageCheck none = dcgan::check_images(unwritten, {0, 2}, reference);
  EXPECT_TRUE(none.unwritten);
  EXPECT_NE(none.message.find("not implemented yet"), std::string::npos);
}

TEST(DcganCheck, ToleranceGrowsWithTheRoundingAndTheMeanCatchesWhatTheMaximumAllows) {
  using cudalabs::ComputePrecision;
  const dcgan::ImageTolerance fp32 = dcgan::image_tolerance(ComputePrecision::kFp32);
  const dcgan::ImageTolerance tf32 = dcgan::image_tolerance(ComputePrecision::kTf32);
  const dcgan::ImageTolerance bf16 = dcgan::image_tolerance(ComputePrecision::kBf16);
  EXPECT_EQ(fp32.max_difference, dcgan::kImageTolerance);
  EXPECT_LT(fp32.max_difference, tf32.max_difference);
  EXPECT_LT(tf32.max_difference, bf16.max_difference);
  EXPECT_LT(tf32.mean_difference, bf16.mean_difference);
  EXPECT_LT(bf16.max_difference, 0.2);  // a tenth of the [-1, 1] range at most

  std::vector<double> reference(2 * dcgan::kImageFloats, 0.25);
  std::vector<float> images(2 * dcgan::kImageFloats, 0.25f);
  // Every value off by 0.01: inside BF16's maximum, far outside its mean.
  for (float& v : images) v += 0.01f;
  const dcgan::ImageCheck shifted =
      dcgan::check_images(images, {0, 1}, reference, ComputePrecision::kBf16);
  EXPECT_FALSE(shifted.passed) << shifted.message;
  EXPECT_NEAR(shifted.mean_difference, 0.01, 1e-6);
  EXPECT_NE(shifted.message.find("bf16 inputs"), std::string::npos) << shifted.message;
  // One value off by 0.05, the rest exact: a BF16 rounding's worst, which it passes; FP32 does not.
  images.assign(images.size(), 0.25f);
  images[123] += 0.05f;
  EXPECT_TRUE(dcgan::check_images(images, {0, 1}, reference, ComputePrecision::kBf16).passed);
  EXPECT_FALSE(dcgan::check_images(images, {0, 1}, reference, ComputePrecision::kTf32).passed);
  EXPECT_FALSE(dcgan::check_images(images, {0, 1}, reference).passed);
}

TEST(DcganCheck, IdenticalImagesIsBitForBit) {
  std::vector<float> a(2 * dcgan::kImageFloats, 1.0f), b = a;
  std::string message;
  EXPECT_TRUE(dcgan::identical_images(a, b, message));
  EXPECT_EQ(message, "PASS");
  b[dcgan::kImageFloats + 7] = std::nextafter(1.0f, 2.0f);
  EXPECT_FALSE(dcgan::identical_images(a, b, message));
  EXPECT_EQ(message, "FAIL: 1 values differ, the first in image 1");
  EXPECT_FALSE(dcgan::identical_images(a, std::span<const float>(b).first(3), message));
}

TEST(DcganInputs, FlagsGiveTheSeedAndRefuseNumWithInput) {
  dcgan::InputFlags flags;
  CLI::App app;
  dcgan::add_input_flags(app, flags);
  app.parse("--seed 42 --num 5", false);
  EXPECT_EQ(flags.num, 5);
  EXPECT_EQ(dcgan::check_input_flags(app, flags), 42u);
  dcgan::InputFlags both;
  CLI::App other;
  dcgan::add_input_flags(other, both);
  other.parse("--num 3 --input z.cldz", false);
  EXPECT_THROW(dcgan::check_input_flags(other, both), cudalabs::FlagError);
}

TEST(DcganInputs, LoadsBuiltinWeightsAndSeededLatents) {
  std::string text;
  const dcgan::Weights weights =
      dcgan::load_weights("default", 5, "/nonexistent/trained.cldw", text);
  EXPECT_EQ(text, "builtin (DCGAN initialisation, seed 5)");
  const dcgan::Latents a = dcgan::load_latents("", 3, 9, text),
                       b = dcgan::load_latents("", 3, 9, text);
  EXPECT_EQ(a.count, 3);
  EXPECT_EQ(a.values, b.values);
  for (float v : a.values) EXPECT_TRUE(v >= -1.0f && v < 1.0f);
  EXPECT_THROW(dcgan::load_weights("/nonexistent/w.cldw", 1, "", text), std::exception);
}

TEST(DcganImages, WritesOnlyTheRequestedFiles) {
  const std::filesystem::path dir =
      std::filesystem::temp_directory_path() / "cudalabs_requested_images";
  std::filesystem::create_directories(dir);
  const std::vector<float> images(2 * dcgan::kImageFloats, 0.5f);
  std::ostringstream log;
  dcgan::write_requested_images(log, "", (dir / "out.cldi").string(), images, 2, 8);
  EXPECT_TRUE(std::filesystem::exists(dir / "out.cldi"));
  EXPECT_FALSE(std::filesystem::exists(dir / "out.png"));
  EXPECT_NE(log.str().find("wrote"), std::string::npos);
  std::filesystem::remove_all(dir);
}

}  // namespace
