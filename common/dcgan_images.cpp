#include "common/dcgan_images.h"

#include "common/dcgan_model.h"

#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <stdexcept>
#include <vector>

#define STB_IMAGE_WRITE_IMPLEMENTATION
#include <stb_image_write.h>

namespace cudalabs::dcgan {
namespace {

constexpr int kChannels = 3;

void check_images(std::span<const float> images, int count, const std::string& path) {
  if (count < 1 || images.size() != static_cast<std::size_t>(count) * kImageFloats) {
    throw std::invalid_argument(path + ": " + std::to_string(images.size()) +
                                " floats are not count = " + std::to_string(count) +
                                " images of 64 x 64 x 3");
  }
}

void append_u32(std::vector<char>& bytes, std::uint32_t value) {
  for (int shift = 0; shift < 32; shift += 8)
    bytes.push_back(static_cast<char>((value >> shift) & 0xff));
}

}  // namespace

unsigned char to_pixel(float value) {
  const float scaled = std::nearbyint((value + 1.0f) * 127.5f);
  return static_cast<unsigned char>(scaled < 0.0f ? 0.0f : (scaled > 255.0f ? 255.0f : scaled));
}

void write_raw_images(const std::string& path, std::span<const float> images, int count) {
  check_images(images, count, path);
  std::vector<char> header = {'C', 'L', 'D', 'C', 'G', 'A', 'N', 'I'};
  for (std::uint32_t field : {1u, static_cast<std::uint32_t>(count), 64u, 64u, 3u})
    append_u32(header, field);
  std::ofstream file(path, std::ios::binary);
  static_assert(std::endian::native == std::endian::little,
                "the raw file is little-endian float32");
  if (file) {
    file.write(header.data(), static_cast<std::streamsize>(header.size()));
    file.write(reinterpret_cast<const char*>(images.data()),
               static_cast<std::streamsize>(images.size_bytes()));
  }
  if (!file) throw std::runtime_error(path + ": cannot write the raw images");
}

void write_png_grid(const std::string& path, std::span<const float> images, int count,
                    int columns) {
  check_images(images, count, path);
  if (columns < 1)
    throw std::invalid_argument(path + ": columns = " + std::to_string(columns) + " must be >= 1");
  const int across = std::min(columns, count);
  const int down = (count + across - 1) / across;
  const int width = across * kImage, height = down * kImage;
  std::vector<unsigned char> pixels(static_cast<std::size_t>(width) * height * kChannels, 0);
  for (int n = 0; n < count; ++n) {
    const int top = (n / across) * kImage, left = (n % across) * kImage;
    for (int y = 0; y < kImage; ++y)
      for (int x = 0; x < kImage * kChannels; ++x) {
        pixels[(static_cast<std::size_t>(top + y) * width + left) * kChannels + x] = to_pixel(
            images[n * kImageFloats + static_cast<std::size_t>(y) * kImage * kChannels + x]);
      }
  }
  if (stbi_write_png(path.c_str(), width, height, kChannels, pixels.data(), width * kChannels) ==
      0) {
    throw std::runtime_error(path + ": cannot write the PNG");
  }
}

void write_requested_images(std::ostream& log, const std::string& png, const std::string& raw,
                            std::span<const float> images, int count, int columns) {
  if (!png.empty()) {
    write_png_grid(png, images, count, columns);
    log << "wrote " << png << " (" << count << " images, " << columns << " per row)\n";
  }
  if (!raw.empty()) {
    write_raw_images(raw, images, count);
    log << "wrote " << raw << "\n";
  }
}

}  // namespace cudalabs::dcgan
