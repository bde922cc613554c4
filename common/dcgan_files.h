/// @file dcgan_files.h
/// @brief The DCGAN's files: weights and latent inputs (labs 09 and 10).
///
/// Both are little-endian binary files a few lines of Python can read and write.
///
/// **Weights** (`.cldw`):
///
///     offset 0   8 bytes   magic "CLDCGANW"
///                u32       version (1)
///                u32       element type: 1 = float32, 2 = float16 (widened to float32 at load)
///                u32       tensor count T
///     T times:   u32 name length L (1..64), L bytes of ASCII name,
///                u32 rank (1..4), rank x u32 dimensions
///     then       every tensor's elements, in header order, row-major
///
/// The tensors, their order, names and shapes must be exactly those of dcgan::generator_tensors().
///
/// **Latent inputs** (`.cldz`):
///
///     offset 0   8 bytes   magic "CLDCGANZ"
///                u32       version (1)
///                u32       count N (>= 1): latent vectors
///                u32       dimension (100)
///     then       N x 100 float32
///
/// Readers refuse, with one line naming the file and the problem: an unreadable file, a wrong magic
/// or version, an unknown element type, a tensor out of order or of the wrong shape, a truncated
/// file (the field and offset), bytes after the end, and any NaN or infinity (the tensor and
/// index).
///
/// Reading a weights file in Python: the header, then per tensor its name and shape, then the
/// values, split by the shapes:
/// @code{.py}
/// f = open(p, "rb"); assert f.read(8) == b"CLDCGANW"
/// version, dtype, count = struct.unpack("<3I", f.read(12))
/// for _ in range(count):
///     n, = struct.unpack("<I", f.read(4)); name = f.read(n).decode()
///     rank, = struct.unpack("<I", f.read(4))
///     shape = struct.unpack(f"<{rank}I", f.read(4 * rank))
/// values = numpy.frombuffer(f.read(), "<f4")
/// @endcode
#pragma once

#include "common/byte_reader.h"
#include "common/dcgan_model.h"

#include <cstddef>
#include <span>
#include <string>
#include <vector>

namespace cudalabs::dcgan {

/// How a weights file stores its elements.
enum class Precision : std::uint32_t {
  kFloat32 = 1,  ///< 4 bytes per element
  kFloat16 = 2,  ///< 2 bytes per element (IEEE half), widened at load
};

/// Latent vectors: `count` rows of kLatent floats.
struct Latents {
  int count = 0;              ///< vectors
  std::vector<float> values;  ///< count * kLatent floats, row-major
};

/// Parses a weights file held in memory. `source` names it in messages. Throws FileFormatError.
Weights parse_weights(std::span<const std::byte> bytes, const std::string& source);
/// Reads and parses a weights file. Throws FileFormatError (also when it cannot be read).
Weights read_weights(const std::string& path);
/// The bytes of a weights file holding `weights` (which must match generator_tensors()).
std::vector<std::byte> serialize_weights(const Weights& weights,
                                         Precision precision = Precision::kFloat32);

/// Parses a latent-input file held in memory. Throws FileFormatError.
Latents parse_latents(std::span<const std::byte> bytes, const std::string& source);
/// Reads and parses a latent-input file. Throws FileFormatError.
Latents read_latents(const std::string& path);
/// The bytes of a latent-input file holding `latents`.
std::vector<std::byte> serialize_latents(const Latents& latents);

/// A whole file's bytes. Throws FileFormatError naming `what` and the path when it cannot be read.
std::vector<std::byte> read_file_bytes(const std::string& path, const std::string& what);
/// Writes bytes to a file. Throws std::runtime_error naming the path when it cannot be written.
void write_file_bytes(const std::string& path, std::span<const std::byte> bytes);

/// IEEE binary16 -> float32, exact (subnormals, infinities and NaN included).
float half_to_float(std::uint16_t half);
/// float32 -> IEEE binary16, rounded to nearest even; overflows become infinity.
std::uint16_t float_to_half(float value);

}  // namespace cudalabs::dcgan
