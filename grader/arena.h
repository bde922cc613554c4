/// @file grader/arena.h
/// @brief The operands' shared memory between the referee and the runner: one memfd the referee
/// makes and sizes, mapped by both. A put's bytes are written there once and copied to the device
/// by the runner; a get's come back the same way. The channel carries only the requests, so a
/// gibibyte operand costs two copies instead of six (pipe, message buffers and zero-fills).
///
/// What the runner could do with the arena it can do anyway: its bytes are the operands it is
/// handed and the results it makes. The referee copies a result out before checking it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>

namespace grader {

/// The arena's file descriptor in the runner (after the channel's 3 and 4, the output's 5).
inline constexpr int kArenaFd = 6;

class Arena {
 public:
  /// The referee's: a new memfd of no bytes (close-on-exec; the runner gets it as kArenaFd).
  static Arena create();
  /// The runner's: the memfd it was started with; sized by the referee, never by the runner.
  static Arena adopt(int fd);

  Arena() = default;
  Arena(Arena&& other) noexcept;
  Arena& operator=(Arena&& other) noexcept;
  Arena(const Arena&) = delete;
  Arena& operator=(const Arena&) = delete;
  ~Arena();

  /// The referee's side: the first `bytes` bytes, the file grown (never shrunk) to hold them.
  std::uint8_t* reserve(std::size_t bytes);
  /// The runner's side: the first `bytes` bytes; throws ChannelError when the referee has not
  /// sized the file to hold them (a request that names more than it put).
  std::uint8_t* view(std::size_t bytes);
  int fd() const { return fd_; }

  /// Called with each new mapping, and before a mapping goes (a side pins it for faster copies
  /// between the device and the arena, and unpins it before it is unmapped).
  using MappingHook = std::function<void(std::uint8_t* data, std::size_t bytes)>;
  void on_mapping(MappingHook mapped, MappingHook unmapping);

 private:
  explicit Arena(int fd) : fd_(fd) {}
  void map(std::size_t bytes);

  void unmap();

  int fd_ = -1;
  std::uint8_t* data_ = nullptr;
  std::size_t mapped_ = 0;
  MappingHook mapped_hook_, unmapping_hook_;
};

}  // namespace grader
