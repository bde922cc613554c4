// The DCGAN's image files: the raw float file reads back as written, the PNG is a valid PNG of the
// grid's size, and pixels map [-1, 1] to [0, 255].
#include "common/dcgan_images.h"

#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <vector>

namespace {

namespace dcgan = cudalabs::dcgan;

std::vector<unsigned char> bytes_of(const std::filesystem::path& path) {
  std::ifstream file(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(file), std::istreambuf_iterator<char>()};
}

std::uint32_t big_endian(const unsigned char* p) {
  return (p[0] << 24) | (p[1] << 16) | (p[2] << 8) | p[3];
}

TEST(DcganImages, PixelMapping) {
  EXPECT_EQ(dcgan::to_pixel(-1.0f), 0);
  EXPECT_EQ(dcgan::to_pixel(1.0f), 255);
  EXPECT_EQ(dcgan::to_pixel(0.0f), 128);  // 127.5 rounds to even
  EXPECT_EQ(dcgan::to_pixel(-3.0f), 0);
  EXPECT_EQ(dcgan::to_pixel(7.0f), 255);
}

TEST(DcganImages, RawFileHeaderAndValues) {
  const std::filesystem::path path =
      std::filesystem::temp_directory_path() / "cudalabs_images_test.cldi";
  std::vector<float> images(2 * 64 * 64 * 3);
  for (std::size_t i = 0; i < images.size(); ++i)
    images[i] = static_cast<float>(i % 7) * 0.25f - 0.75f;
  dcgan::write_raw_images(path.string(), images, 2);
  const std::vector<unsigned char> bytes = bytes_of(path);
  ASSERT_EQ(bytes.size(), 28 + images.size() * 4);
  EXPECT_EQ(std::memcmp(bytes.data(), "CLDCGANI", 8), 0);
  std::uint32_t fields[5];
  std::memcpy(fields, bytes.data() + 8, sizeof(fields));
  EXPECT_EQ(fields[0], 1u);
  EXPECT_EQ(fields[1], 2u);
  EXPECT_EQ(fields[2], 64u);
  EXPECT_EQ(fields[4], 3u);
  std::vector<float> back(images.size());
  std::memcpy(back.data(), bytes.data() + 28, back.size() * 4);
  EXPECT_EQ(back, images);
  std::filesystem::remove(path);
}

TEST(DcganImages, PngGridHasTheGridsSize) {
  const std::filesystem::path path =
      std::filesystem::temp_directory_path() / "cudalabs_images_test.png";
  std::vector<float> images(5 * 64 * 64 * 3, 0.5f);
  dcgan::write_png_grid(path.string(), images, 5, 3);  // 3 across, 2 down
  const std::vector<unsigned char> bytes = bytes_of(path);
  ASSERT_GT(bytes.size(), 33u);
  EXPECT_EQ(std::memcmp(bytes.data(), "\x89PNG\r\n\x1a\n", 8), 0);
  EXPECT_EQ(std::memcmp(bytes.data() + 12, "IHDR", 4), 0);
  EXPECT_EQ(big_endian(bytes.data() + 16), 3u * 64);
  EXPECT_EQ(big_endian(bytes.data() + 20), 2u * 64);
  std::filesystem::remove(path);
}

TEST(DcganImages, RejectsWrongCountsAndUnwritablePaths) {
  std::vector<float> images(64 * 64 * 3);
  EXPECT_THROW(dcgan::write_raw_images("/tmp/x.cldi", images, 2), std::invalid_argument);
  EXPECT_THROW(dcgan::write_png_grid("/tmp/x.png", images, 1, 0), std::invalid_argument);
  EXPECT_THROW(dcgan::write_raw_images("/nonexistent-dir/x.cldi", images, 1), std::runtime_error);
  EXPECT_THROW(dcgan::write_png_grid("/nonexistent-dir/x.png", images, 1, 1), std::runtime_error);
}

}  // namespace
