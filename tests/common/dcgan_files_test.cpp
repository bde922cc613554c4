// The DCGAN's weights and latent files: round trips, float16, and every kind of bad file refused in
// one line naming the file and the problem.
#include "common/dcgan_files.h"

#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <limits>
#include <string>

namespace {

using namespace cudalabs::dcgan;
using cudalabs::FileFormatError;

// The message of the FileFormatError that parsing `bytes` throws, or "accepted".
std::string weights_rejection(const std::vector<std::byte>& bytes) {
  try {
    parse_weights(bytes, "weights file 'w.cldw'");
  } catch (const FileFormatError& error) {
    return error.what();
  }
  return "accepted";
}

std::string latents_rejection(const std::vector<std::byte>& bytes) {
  try {
    parse_latents(bytes, "latent file 'z.cldz'");
  } catch (const FileFormatError& error) {
    return error.what();
  }
  return "accepted";
}

void put_u32(std::vector<std::byte>& bytes, std::size_t offset, std::uint32_t value) {
  for (int i = 0; i < 4; ++i) bytes[offset + i] = static_cast<std::byte>((value >> (8 * i)) & 0xFF);
}

void put_float(std::vector<std::byte>& bytes, std::size_t offset, float value) {
  put_u32(bytes, offset, std::bit_cast<std::uint32_t>(value));
}

// Byte offset of tensor `index`'s data in a float32 weights file.
std::size_t data_offset(const std::vector<std::byte>& file, std::size_t index) {
  std::size_t header = 8 + 4 * 3;
  for (const TensorSpec& spec : generator_tensors())
    header += 4 + spec.name.size() + 4 + 4 * spec.shape.size();
  std::size_t offset = header;
  for (std::size_t i = 0; i < index; ++i) offset += 4 * generator_tensors()[i].elements();
  EXPECT_LE(offset, file.size());
  return offset;
}

const Weights& weights() {
  static const Weights w = default_weights(7);
  return w;
}

const std::vector<std::byte>& weights_file() {
  static const std::vector<std::byte> bytes = serialize_weights(weights());
  return bytes;
}

TEST(DcganModel, TensorsFollowDcganShpc) {
  const std::vector<TensorSpec>& specs = generator_tensors();
  ASSERT_EQ(specs.size(), 2 + 4 + 4 * 2 + 3 * 4u);
  EXPECT_EQ(specs.front().name, "linear.weight");
  EXPECT_EQ(specs.front().shape, (std::vector<std::uint32_t>{100, 8192}));
  EXPECT_EQ(specs[6].name, "tconv1.filter");
  EXPECT_EQ(specs[6].shape, (std::vector<std::uint32_t>{5, 5, 256, 512}));
  EXPECT_EQ(specs.back().name, "tconv4.bias");
  EXPECT_EQ(specs.back().shape, (std::vector<std::uint32_t>{3}));
  std::size_t total = 0;
  for (const TensorSpec& spec : specs) total += spec.elements();
  EXPECT_EQ(total, 100u * 8192 + 8192 + 4 * 512 + 25u * 256 * 512 + 256 + 4 * 256 +
                       25u * 128 * 256 + 128 + 4 * 128 + 25u * 64 * 128 + 64 + 4 * 64 +
                       25u * 3 * 64 + 3);
}

TEST(DcganModel, DefaultWeightsAreDeterministicAndShaped) {
  const Weights again = default_weights(7), other = default_weights(8);
  EXPECT_EQ(weights().tensors, again.tensors);
  EXPECT_NE(weights().tensors[0], other.tensors[0]);
  const std::vector<float>& filter = weights()["tconv2.filter"];
  double sum = 0, squares = 0;
  for (float v : filter) {
    sum += v;
    squares += static_cast<double>(v) * v;
  }
  const double mean = sum / filter.size(),
               deviation = std::sqrt(squares / filter.size() - mean * mean);
  EXPECT_NEAR(mean, 0.0, 1e-3);
  EXPECT_NEAR(deviation, 0.02, 1e-3);  // DCGAN's N(0, 0.02)
  for (float v : weights()["bn1.variance"]) EXPECT_GT(v, 0.0f);
  for (float v : weights()["tconv1.bias"]) EXPECT_EQ(v, 0.0f);
  EXPECT_THROW(weights()["tconv9.filter"], std::invalid_argument);
}

TEST(DcganFiles, WeightsRoundTripExactlyInFloat32) {
  EXPECT_EQ(parse_weights(weights_file(), "w").tensors, weights().tensors);
}

TEST(DcganFiles, WeightsRoundTripToHalfPrecisionInFloat16) {
  const std::vector<std::byte> half = serialize_weights(weights(), Precision::kFloat16);
  EXPECT_LT(half.size(), weights_file().size() * 0.51);
  const Weights loaded = parse_weights(half, "w");
  for (std::size_t t = 0; t < loaded.tensors.size(); ++t) {
    for (std::size_t i = 0; i < loaded.tensors[t].size(); ++i) {
      const float original = weights().tensors[t][i];
      ASSERT_NEAR(loaded.tensors[t][i], original, std::fabs(original) * 0x1p-11 + 0x1p-24)
          << t << " " << i;
    }
  }
}

TEST(DcganFiles, HalfConversionRoundTripsEveryHalf) {
  for (std::uint32_t bits = 0; bits < 0x10000; ++bits) {
    const float value = half_to_float(static_cast<std::uint16_t>(bits));
    if (std::isnan(value)) {
      EXPECT_TRUE(std::isnan(half_to_float(float_to_half(value))));
      continue;
    }
    ASSERT_EQ(float_to_half(value), bits) << std::hex << bits;
  }
  EXPECT_EQ(half_to_float(0x3C00), 1.0f);
  EXPECT_EQ(half_to_float(0x0001), 0x1p-24f);         // the smallest subnormal
  EXPECT_EQ(float_to_half(65520.0f), 0x7C00);         // rounds past the largest half: infinity
  EXPECT_EQ(float_to_half(1.0f + 0x1p-11f), 0x3C00);  // a tie rounds to even
  EXPECT_EQ(float_to_half(0x1p-26f), 0x0000);
}

TEST(DcganFiles, BadWeightsFilesAreRefusedNamingTheProblem) {
  const std::vector<std::byte>& good = weights_file();
  EXPECT_EQ(weights_rejection(good), "accepted");
  EXPECT_EQ(weights_rejection({}),
            "weights file 'w.cldw': truncated: the magic needs 8 bytes at offset 0, only 0 remain");

  std::vector<std::byte> bytes = good;
  std::memcpy(bytes.data(), "PNGJUNK!", 8);
  EXPECT_EQ(weights_rejection(bytes),
            "weights file 'w.cldw': wrong magic 'PNGJUNK!' (expected 'CLDCGANW')");
  bytes = good;
  put_u32(bytes, 8, 2);
  EXPECT_EQ(weights_rejection(bytes),
            "weights file 'w.cldw': version 2 (this suite reads version 1)");
  bytes = good;
  put_u32(bytes, 12, 3);
  EXPECT_EQ(weights_rejection(bytes),
            "weights file 'w.cldw': element type 3 (expected 1 = float32 or 2 = float16)");
  bytes = good;
  put_u32(bytes, 16, 5);
  EXPECT_EQ(weights_rejection(bytes), "weights file 'w.cldw': 5 tensors (the generator has 26)");
  bytes = good;
  std::memcpy(bytes.data() + 24, "LINEAR", 6);  // the first name, "linear.weight"
  EXPECT_EQ(weights_rejection(bytes),
            "weights file 'w.cldw': tensor 'LINEAR.weight' where 'linear.weight' was expected");
  bytes = good;
  put_u32(bytes, 24 + 13 + 4, 99);  // linear.weight's first dimension
  EXPECT_EQ(weights_rejection(bytes),
            "weights file 'w.cldw': tensor 'linear.weight' has shape [99 x 8192], the generator "
            "needs [100 x 8192]");
  bytes = good;
  put_u32(bytes, 24 + 13, 7);  // its rank
  EXPECT_EQ(weights_rejection(bytes), "weights file 'w.cldw': rank 7 for tensor 'linear.weight'");

  bytes = good;
  bytes.pop_back();
  EXPECT_EQ(weights_rejection(bytes),
            "weights file 'w.cldw': truncated: tensor 'tconv4.bias' needs 12 bytes at offset " +
                std::to_string(good.size() - 12) + ", only 11 remain");
  bytes = good;
  bytes.push_back(std::byte{0});
  EXPECT_EQ(weights_rejection(bytes),
            "weights file 'w.cldw': 1 unexpected bytes after the data, at offset " +
                std::to_string(good.size()));
  bytes = good;
  put_float(bytes, data_offset(bytes, 5) + 4 * 3,
            std::numeric_limits<float>::quiet_NaN());  // bn0.variance[3]
  EXPECT_EQ(weights_rejection(bytes),
            "weights file 'w.cldw': tensor 'bn0.variance' element 3 is NaN");
  bytes = good;
  put_float(bytes, data_offset(bytes, 0), -std::numeric_limits<float>::infinity());
  EXPECT_EQ(weights_rejection(bytes),
            "weights file 'w.cldw': tensor 'linear.weight' element 0 is infinite");
}

TEST(DcganFiles, LatentsRoundTripAndBadFilesAreRefused) {
  Latents latents;
  latents.count = 3;
  latents.values.resize(3 * kLatent);
  for (std::size_t i = 0; i < latents.values.size(); ++i)
    latents.values[i] = static_cast<float>(i) * 0.01f - 1.0f;
  const std::vector<std::byte> good = serialize_latents(latents);
  ASSERT_EQ(good.size(), 20 + 3 * kLatent * 4u);
  const Latents loaded = parse_latents(good, "z");
  EXPECT_EQ(loaded.count, 3);
  EXPECT_EQ(loaded.values, latents.values);

  std::vector<std::byte> bytes = good;
  std::memcpy(bytes.data(), "CLDCGANW", 8);  // a weights file given as latents
  EXPECT_EQ(latents_rejection(bytes),
            "latent file 'z.cldz': wrong magic 'CLDCGANW' (expected 'CLDCGANZ')");
  bytes = good;
  put_u32(bytes, 12, 0);
  EXPECT_EQ(latents_rejection(bytes), "latent file 'z.cldz': count 0 (expected 1 to 16777216)");
  bytes = good;
  put_u32(bytes, 16, 128);
  EXPECT_EQ(latents_rejection(bytes),
            "latent file 'z.cldz': dimension 128 (the generator takes 100)");
  bytes = good;
  put_u32(bytes, 12, 4);  // claims a fourth vector the file does not hold
  EXPECT_EQ(latents_rejection(bytes),
            "latent file 'z.cldz': truncated: the latent vectors needs 1600 bytes at offset 20, "
            "only 1200 remain");
  bytes = good;
  put_u32(bytes, 12, 16777216);  // huge count: refused before any allocation
  EXPECT_NE(latents_rejection(bytes).find("truncated"), std::string::npos);
  bytes = good;
  put_float(bytes, 20 + 4 * 150, std::numeric_limits<float>::quiet_NaN());
  EXPECT_EQ(latents_rejection(bytes),
            "latent file 'z.cldz': the latent vectors element 150 is NaN");
  bytes = good;
  bytes.resize(bytes.size() + 3);
  EXPECT_EQ(latents_rejection(bytes),
            "latent file 'z.cldz': 3 unexpected bytes after the data, at offset 1220");
}

TEST(DcganFiles, FilesOnDisk) {
  const std::filesystem::path folder =
      std::filesystem::temp_directory_path() / "cudalabs_dcgan_files_test";
  std::filesystem::create_directories(folder);
  const std::string path = (folder / "w.cldw").string();
  write_file_bytes(path, weights_file());
  EXPECT_EQ(read_weights(path).tensors, weights().tensors);
  try {
    read_weights((folder / "missing.cldw").string());
    ADD_FAILURE() << "a missing file was accepted";
  } catch (const FileFormatError& error) {
    EXPECT_EQ(std::string(error.what()), "weights file '" + (folder / "missing.cldw").string() +
                                             "': cannot be read (No such file or directory)");
  }
  try {
    read_latents(folder.string());
    ADD_FAILURE() << "a folder was accepted";
  } catch (const FileFormatError& error) {
    EXPECT_EQ(std::string(error.what()),
              "latent file '" + folder.string() + "': cannot be read (it is a folder)");
  }
  std::filesystem::remove_all(folder);
}

}  // namespace
