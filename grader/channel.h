/// @file grader/channel.h
/// @brief The grader's channel between the referee (trusted) and the runner (the student's code).
///
/// A message is a header (magic, operation, payload length) and a payload of typed fields. The
/// reader checks every length against what is left and against a cap, so a runner that writes
/// garbage makes the referee fail one call with a clear message, never read out of bounds.
#pragma once

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

namespace grader {

/// Thrown when the other side closed the channel or sent something malformed.
class ChannelError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// The operations of the protocol (referee -> runner), and the reply's kind.
enum class Op : std::uint32_t {
  kHello = 1,    ///< reply: the runner's process id
  kPut = 2,      ///< id, alignment offset, guard pattern, source, bytes (PutSource): a device
                 ///< buffer with guards
  kGet = 3,      ///< id: the front guard, the data and the back guard into the arena (arena.h)
  kFreeAll = 4,  ///< ids to keep: frees every other buffer
  kRun = 5,      ///< calls: the student's functions, then one synchronization; reply the status
                 ///< and each call's host result bytes
  kCallbackReply = 6,  ///< the referee's answer to a callback: tag, status, message, bytes
  kRange = 7,    ///< a label: an NVTX range of that name opened on the thread that runs the calls
                 ///< (an empty label closes it), so that Nsight Compute, watching several probes
                 ///< in one run, names the probe each kernel was launched in
  kReply = 100,  ///< a reply (its payload starts with a Status)
  kCallback = 101,  ///< runner -> referee during a run: tag, kind, bytes (lab 10's workers)
};

/// Where a put buffer's bytes come from.
enum class PutSource : std::uint32_t {
  kArena = 0,     ///< the arena's first bytes, written by the referee
  kPoisoned = 1,  ///< 0xFF bytes, set on the device (an output nothing has written yet)
  kSlice = 2,     ///< a copy, on the device, of bytes of a buffer already put (id, byte offset)
};

/// How a call ended, as the runner reports it.
enum class Status : std::uint32_t {
  kOk = 0,
  kInvalidArgument = 1,  ///< the student's function threw std::invalid_argument
  kError = 2,            ///< it threw another exception (a CUDA error, std::runtime_error, ...)
  kCudaFault = 3,        ///< a sticky CUDA error: the context is lost and the runner exits
  kMissing = 4,          ///< no such variant or function in the student's code
  kProtocol = 5,         ///< the request was malformed (a referee bug)
};

/// Longest payload accepted: larger than any buffer the grading tests or benchmarks move.
inline constexpr std::uint64_t kMaxPayload = std::uint64_t{8} << 30;
/// Bytes of the guard before and after every device buffer.
inline constexpr std::size_t kGuardBytes = 256;

/// Builds a payload field by field.
class Writer {
 public:
  void u32(std::uint32_t value);
  void i64(std::int64_t value);
  void f64(double value);
  void str(const std::string& text);
  void bytes(const void* data, std::size_t count);
  /// Reserves room for `count` raw bytes and returns where to write them.
  std::uint8_t* raw(std::size_t count);
  const std::vector<std::uint8_t>& data() const { return data_; }

 private:
  std::vector<std::uint8_t> data_;
};

/// Reads a payload field by field; every read is bounds-checked.
class Reader {
 public:
  Reader(const std::uint8_t* data, std::size_t size) : data_(data), size_(size) {}
  explicit Reader(const std::vector<std::uint8_t>& payload)
      : Reader(payload.data(), payload.size()) {}
  std::uint32_t u32();
  std::int64_t i64();
  double f64();
  std::string str(std::size_t max_length = 1 << 20);
  /// A length-prefixed byte field: where it starts and how long it is (it stays in the payload).
  std::pair<const std::uint8_t*, std::size_t> bytes(std::size_t max_length = kMaxPayload);
  bool done() const { return offset_ == size_; }

 private:
  const std::uint8_t* take(std::size_t count);
  const std::uint8_t* data_;
  std::size_t size_;
  std::size_t offset_ = 0;
};

/// One message read from a file descriptor.
struct Message {
  Op op = Op::kReply;
  std::vector<std::uint8_t> payload;
};

/// Writes one message (blocking, all of it); throws ChannelError when the other side is gone.
void send_message(int fd, Op op, const std::vector<std::uint8_t>& payload);
/// Reads one message; throws ChannelError on end of file, a bad header or a payload over
/// `max_payload`. `deadline_ms` < 0 waits forever; otherwise ChannelError("time limit") after it.
Message receive_message(int fd, std::uint64_t max_payload = kMaxPayload,
                        long long deadline_ms = -1);

/// True when the channel error was the time limit rather than a closed or broken channel.
bool is_time_limit(const ChannelError& error);

}  // namespace grader
