#include "common/dcgan_files.h"

#include <bit>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>

namespace cudalabs::dcgan {
namespace {

constexpr char kWeightsMagic[8] = {'C', 'L', 'D', 'C', 'G', 'A', 'N', 'W'};
constexpr char kLatentsMagic[8] = {'C', 'L', 'D', 'C', 'G', 'A', 'N', 'Z'};
constexpr std::uint32_t kVersion = 1;
constexpr std::uint32_t kMaxNameLength = 64;
constexpr std::uint32_t kMaxRank = 4;

std::string shape_text(const std::vector<std::uint32_t>& shape) {
  std::ostringstream text;
  text << "[";
  for (std::size_t i = 0; i < shape.size(); ++i) text << (i ? " x " : "") << shape[i];
  text << "]";
  return text.str();
}

void expect_magic(ByteReader& reader, const char (&magic)[8]) {
  const std::span<const std::byte> found = reader.bytes(8, "the magic");
  if (std::memcmp(found.data(), magic, 8) != 0) {
    std::string printable;
    for (std::byte b : found) {
      const char c = static_cast<char>(b);
      printable += (c >= 32 && c < 127) ? c : '?';
    }
    reader.fail("wrong magic '" + printable + "' (expected '" + std::string(magic, 8) + "')");
  }
  const std::uint32_t version = reader.u32("the version");
  if (version != kVersion)
    reader.fail("version " + std::to_string(version) + " (this suite reads version 1)");
}

float read_float32(const std::byte* p) {
  const std::uint32_t bits =
      static_cast<std::uint32_t>(p[0]) | static_cast<std::uint32_t>(p[1]) << 8 |
      static_cast<std::uint32_t>(p[2]) << 16 | static_cast<std::uint32_t>(p[3]) << 24;
  return std::bit_cast<float>(bits);
}

void append_u32(std::vector<std::byte>& out, std::uint32_t value) {
  for (int i = 0; i < 4; ++i) out.push_back(static_cast<std::byte>((value >> (8 * i)) & 0xFF));
}

void append_bytes(std::vector<std::byte>& out, const void* data, std::size_t count) {
  const auto* p = static_cast<const std::byte*>(data);
  out.insert(out.end(), p, p + count);
}

// Reads `count` elements of `size` bytes each, converting to float and refusing non-finite values.
std::vector<float> read_elements(ByteReader& reader, std::size_t count, Precision precision,
                                 const std::string& what) {
  const std::size_t size = precision == Precision::kFloat32 ? 4 : 2;
  if (count > reader.remaining() / size) {
    reader.fail("truncated: " + what + " needs " + std::to_string(count * size) +
                " bytes at offset " + std::to_string(reader.offset()) + ", only " +
                std::to_string(reader.remaining()) + " remain");
  }
  const std::span<const std::byte> raw = reader.bytes(count * size, what);
  std::vector<float> values(count);
  for (std::size_t i = 0; i < count; ++i) {
    const std::byte* p = raw.data() + i * size;
    values[i] =
        size == 4 ? read_float32(p)
                  : half_to_float(static_cast<std::uint16_t>(
                        static_cast<std::uint16_t>(p[0]) | static_cast<std::uint16_t>(p[1]) << 8));
    if (!std::isfinite(values[i])) {
      reader.fail(what + " element " + std::to_string(i) + " is " +
                  (std::isnan(values[i]) ? "NaN" : "infinite"));
    }
  }
  return values;
}

void expect_end(const ByteReader& reader) {
  if (reader.remaining() != 0) {
    reader.fail(std::to_string(reader.remaining()) +
                " unexpected bytes after the data, at offset " + std::to_string(reader.offset()));
  }
}

}  // namespace

float half_to_float(std::uint16_t half) {
  const std::uint32_t sign = static_cast<std::uint32_t>(half & 0x8000u) << 16;
  const std::uint32_t exponent = (half >> 10) & 0x1Fu;
  std::uint32_t mantissa = half & 0x3FFu;
  std::uint32_t bits;
  if (exponent == 0x1F) {
    bits = sign | 0x7F800000u | (mantissa << 13);  // infinity or NaN
  } else if (exponent != 0) {
    bits = sign | ((exponent + 112) << 23) | (mantissa << 13);  // normal: rebias 15 -> 127
  } else if (mantissa == 0) {
    bits = sign;  // signed zero
  } else {
    // Subnormal half: normalise the mantissa into a normal float.
    int shift = 0;
    while ((mantissa & 0x400u) == 0) {
      mantissa <<= 1;
      ++shift;
    }
    bits = sign | (static_cast<std::uint32_t>(113 - shift) << 23) | ((mantissa & 0x3FFu) << 13);
  }
  return std::bit_cast<float>(bits);
}

std::uint16_t float_to_half(float value) {
  const std::uint32_t bits = std::bit_cast<std::uint32_t>(value);
  const std::uint16_t sign = static_cast<std::uint16_t>((bits >> 16) & 0x8000u);
  const std::uint32_t exponent = (bits >> 23) & 0xFFu;
  const std::uint32_t mantissa = bits & 0x7FFFFFu;
  if (exponent == 0xFF)
    return static_cast<std::uint16_t>(sign | 0x7C00u | (mantissa ? 0x200u : 0u));
  const int e = static_cast<int>(exponent) - 127 + 15;
  if (e >= 0x1F) return static_cast<std::uint16_t>(sign | 0x7C00u);  // too large: infinity
  if (e <= 0) {
    if (e < -10) return sign;  // below half the smallest subnormal: zero
    // Subnormal: shift the implicit-one mantissa right, rounding to nearest even.
    const std::uint32_t full = mantissa | 0x800000u;
    const int shift = 14 - e;
    std::uint32_t half_mantissa = full >> shift;
    const std::uint32_t rest = full & ((1u << shift) - 1), halfway = 1u << (shift - 1);
    if (rest > halfway || (rest == halfway && (half_mantissa & 1u))) ++half_mantissa;
    return static_cast<std::uint16_t>(sign | half_mantissa);
  }
  std::uint32_t half = (static_cast<std::uint32_t>(e) << 10) | (mantissa >> 13);
  const std::uint32_t rest = mantissa & 0x1FFFu;
  if (rest > 0x1000u || (rest == 0x1000u && (half & 1u)))
    ++half;  // may carry into the exponent: correct
  return static_cast<std::uint16_t>(sign | half);
}

std::vector<std::byte> read_file_bytes(const std::string& path, const std::string& what) {
  const std::string name = what + " '" + path + "'";
  std::error_code error;
  if (std::filesystem::is_directory(path, error))
    throw FileFormatError(name + ": cannot be read (it is a folder)");
  std::ifstream file(path, std::ios::binary);
  if (!file) throw FileFormatError(name + ": cannot be read (" + std::strerror(errno) + ")");
  file.seekg(0, std::ios::end);
  const std::streamoff size = file.tellg();
  file.seekg(0, std::ios::beg);
  if (size < 0 || !file) throw FileFormatError(name + ": cannot be read (not a regular file)");
  std::vector<std::byte> bytes(static_cast<std::size_t>(size));
  if (size > 0) file.read(reinterpret_cast<char*>(bytes.data()), size);
  if (file.gcount() != size)
    throw FileFormatError(name + ": read error after " + std::to_string(file.gcount()) + " bytes");
  return bytes;
}

void write_file_bytes(const std::string& path, std::span<const std::byte> bytes) {
  std::ofstream file(path, std::ios::binary | std::ios::trunc);
  if (file)
    file.write(reinterpret_cast<const char*>(bytes.data()),
               static_cast<std::streamsize>(bytes.size()));
  if (!file)
    throw std::runtime_error("'" + path + "': cannot be written (" + std::strerror(errno) + ")");
}

Weights parse_weights(std::span<const std::byte> bytes, const std::string& source) {
  ByteReader reader(bytes, source);
  expect_magic(reader, kWeightsMagic);
  const std::uint32_t type = reader.u32("the element type");
  if (type != static_cast<std::uint32_t>(Precision::kFloat32) &&
      type != static_cast<std::uint32_t>(Precision::kFloat16)) {
    reader.fail("element type " + std::to_string(type) + " (expected 1 = float32 or 2 = float16)");
  }
  const Precision precision = static_cast<Precision>(type);
  const std::vector<TensorSpec>& specs = generator_tensors();
  const std::uint32_t count = reader.u32("the tensor count");
  if (count != specs.size()) {
    reader.fail(std::to_string(count) + " tensors (the generator has " +
                std::to_string(specs.size()) + ")");
  }
  for (const TensorSpec& spec : specs) {
    const std::string field = "tensor '" + spec.name + "'";
    const std::uint32_t length = reader.u32("the name length of " + field);
    if (length == 0 || length > kMaxNameLength) {
      reader.fail("name length " + std::to_string(length) + " where " + field + " was expected");
    }
    const std::span<const std::byte> name_bytes = reader.bytes(length, "the name of " + field);
    const std::string name(reinterpret_cast<const char*>(name_bytes.data()), length);
    if (name != spec.name)
      reader.fail("tensor '" + name + "' where '" + spec.name + "' was expected");
    const std::uint32_t rank = reader.u32("the rank of " + field);
    if (rank == 0 || rank > kMaxRank) reader.fail("rank " + std::to_string(rank) + " for " + field);
    std::vector<std::uint32_t> shape(rank);
    for (std::uint32_t& dimension : shape) dimension = reader.u32("the shape of " + field);
    if (shape != spec.shape) {
      reader.fail(field + " has shape " + shape_text(shape) + ", the generator needs " +
                  shape_text(spec.shape));
    }
  }
  Weights weights;
  for (const TensorSpec& spec : specs) {
    weights.tensors.push_back(
        read_elements(reader, spec.elements(), precision, "tensor '" + spec.name + "'"));
  }
  expect_end(reader);
  return weights;
}

Weights read_weights(const std::string& path) {
  const std::vector<std::byte> bytes = read_file_bytes(path, "weights file");
  return parse_weights(bytes, "weights file '" + path + "'");
}

std::vector<std::byte> serialize_weights(const Weights& weights, Precision precision) {
  const std::vector<TensorSpec>& specs = generator_tensors();
  if (weights.tensors.size() != specs.size()) {
    throw std::invalid_argument("serialize_weights: " + std::to_string(weights.tensors.size()) +
                                " tensors, the generator has " + std::to_string(specs.size()));
  }
  // The magic goes in by construction: GCC 12 misreads an insert into an empty vector as an
  // overflow.
  std::vector<std::byte> out(8);
  std::memcpy(out.data(), kWeightsMagic, 8);
  append_u32(out, kVersion);
  append_u32(out, static_cast<std::uint32_t>(precision));
  append_u32(out, static_cast<std::uint32_t>(specs.size()));
  for (const TensorSpec& spec : specs) {
    append_u32(out, static_cast<std::uint32_t>(spec.name.size()));
    append_bytes(out, spec.name.data(), spec.name.size());
    append_u32(out, static_cast<std::uint32_t>(spec.shape.size()));
    for (std::uint32_t dimension : spec.shape) append_u32(out, dimension);
  }
  for (std::size_t t = 0; t < specs.size(); ++t) {
    if (weights.tensors[t].size() != specs[t].elements()) {
      throw std::invalid_argument("serialize_weights: tensor '" + specs[t].name + "' holds " +
                                  std::to_string(weights.tensors[t].size()) + " floats, expected " +
                                  std::to_string(specs[t].elements()));
    }
    for (float value : weights.tensors[t]) {
      if (precision == Precision::kFloat32) {
        append_u32(out, std::bit_cast<std::uint32_t>(value));
      } else {
        const std::uint16_t half = float_to_half(value);
        out.push_back(static_cast<std::byte>(half & 0xFF));
        out.push_back(static_cast<std::byte>(half >> 8));
      }
    }
  }
  return out;
}

Latents parse_latents(std::span<const std::byte> bytes, const std::string& source) {
  ByteReader reader(bytes, source);
  expect_magic(reader, kLatentsMagic);
  const std::uint32_t count = reader.u32("the count");
  if (count == 0 || count > (1u << 24))
    reader.fail("count " + std::to_string(count) + " (expected 1 to 16777216)");
  const std::uint32_t dimension = reader.u32("the dimension");
  if (dimension != kLatent) {
    reader.fail("dimension " + std::to_string(dimension) + " (the generator takes " +
                std::to_string(kLatent) + ")");
  }
  Latents latents;
  latents.count = static_cast<int>(count);
  latents.values = read_elements(reader, static_cast<std::size_t>(count) * kLatent,
                                 Precision::kFloat32, "the latent vectors");
  expect_end(reader);
  return latents;
}

Latents read_latents(const std::string& path) {
  const std::vector<std::byte> bytes = read_file_bytes(path, "latent file");
  return parse_latents(bytes, "latent file '" + path + "'");
}

std::vector<std::byte> serialize_latents(const Latents& latents) {
  if (latents.count < 1 ||
      latents.values.size() != static_cast<std::size_t>(latents.count) * kLatent) {
    throw std::invalid_argument("serialize_latents: count " + std::to_string(latents.count) +
                                " with " + std::to_string(latents.values.size()) + " floats");
  }
  std::vector<std::byte> out(8);
  std::memcpy(out.data(), kLatentsMagic, 8);
  append_u32(out, kVersion);
  append_u32(out, static_cast<std::uint32_t>(latents.count));
  append_u32(out, kLatent);
  for (float value : latents.values) append_u32(out, std::bit_cast<std::uint32_t>(value));
  return out;
}

}  // namespace cudalabs::dcgan
