/// @file byte_reader.h
/// @brief A bounds-checked little-endian reader over a file's bytes, for the suite's file formats.
/// Every failure names the file, the field being read and the offset, in one line.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>
#include <stdexcept>
#include <string>

namespace cudalabs {

/// A file the suite refused: the message is one line naming the file and what is wrong with it.
class FileFormatError : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

/// Reads fields in order from a byte span; never reads past its end.
class ByteReader {
 public:
  /// @param bytes   the whole file
  /// @param source  how messages name it, e.g. "weights file 'gen.bin'"
  ByteReader(std::span<const std::byte> bytes, std::string source)
      : bytes_(bytes), source_(std::move(source)) {}

  /// The next 4 bytes as a little-endian unsigned integer.
  std::uint32_t u32(const std::string& field) {
    const std::byte* p = take(4, field);
    return static_cast<std::uint32_t>(p[0]) | static_cast<std::uint32_t>(p[1]) << 8 |
           static_cast<std::uint32_t>(p[2]) << 16 | static_cast<std::uint32_t>(p[3]) << 24;
  }

  /// The next `count` bytes.
  std::span<const std::byte> bytes(std::size_t count, const std::string& field) {
    const std::byte* p = take(count, field);
    return {p, count};
  }

  std::size_t offset() const { return offset_; }                     ///< bytes consumed so far
  std::size_t remaining() const { return bytes_.size() - offset_; }  ///< bytes left
  const std::string& source() const { return source_; }  ///< the file's name in messages

  /// Throws FileFormatError: "<source>: <what>".
  [[noreturn]] void fail(const std::string& what) const {
    throw FileFormatError(source_ + ": " + what);
  }

 private:
  const std::byte* take(std::size_t count, const std::string& field) {
    if (count > remaining()) {
      fail("truncated: " + field + " needs " + std::to_string(count) + " bytes at offset " +
           std::to_string(offset_) + ", only " + std::to_string(remaining()) + " remain");
    }
    const std::byte* p = bytes_.data() + offset_;
    offset_ += count;
    return p;
  }

  std::span<const std::byte> bytes_;
  std::string source_;
  std::size_t offset_ = 0;
};

}  // namespace cudalabs
