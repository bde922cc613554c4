/// @file dcgan_images.h
/// @brief The DCGAN's outputs on disk: a PNG grid for people, a raw float file for checking.
///
/// **Raw images** (`.cldi`), little-endian:
///
///     offset 0   8 bytes   magic "CLDCGANI"
///                u32       version (1)
///                u32 x 4   count N, height 64, width 64, channels 3
///     then       N x 64 x 64 x 3 float32, each image H x W x C (the generator's own layout)
///
/// Python: `numpy.frombuffer(data[28:], "<f4").reshape(N, 64, 64, 3)` (tools/dcgan_torch.py).
#pragma once

#include <ostream>
#include <span>
#include <string>

namespace cudalabs::dcgan {

/// Writes `count` images (count x 64 x 64 x 3 floats) as a raw image file. Throws
/// std::runtime_error naming the path when it cannot be written, std::invalid_argument when
/// `images` is not count x 64 x 64 x 3 floats.
void write_raw_images(const std::string& path, std::span<const float> images, int count);

/// Writes `count` images as one PNG: a grid of `columns` images per row (the last row may be short,
/// the rest of it black), pixels mapped from [-1, 1] to [0, 255] (values outside are clamped: tanh
/// keeps them inside). Throws like write_raw_images; also for columns < 1.
void write_png_grid(const std::string& path, std::span<const float> images, int count, int columns);

/// What a driver's --output (PNG grid) and --raw flags ask for: writes each file that is named
/// (empty: not asked) and says so on `log`.
void write_requested_images(std::ostream& log, const std::string& png, const std::string& raw,
                            std::span<const float> images, int count, int columns);

/// The byte a [-1, 1] value becomes in the PNG: round((v + 1) * 127.5), clamped to [0, 255].
unsigned char to_pixel(float value);

}  // namespace cudalabs::dcgan
