#include "grader/channel.h"

#include <poll.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>

namespace grader {

namespace {

constexpr std::uint32_t kMagic = 0x434c4752;  // "RGLC"
constexpr const char* kTimeLimit = "time limit";

void write_all(int fd, const void* data, std::size_t count) {
  const auto* bytes = static_cast<const std::uint8_t*>(data);
  while (count > 0) {
    const ssize_t written = ::write(fd, bytes, count);
    if (written < 0 && errno == EINTR) continue;
    if (written <= 0)
      throw ChannelError(std::string("the channel is closed (") + std::strerror(errno) + ")");
    bytes += written;
    count -= static_cast<std::size_t>(written);
  }
}

// Reads exactly `count` bytes, waiting at most until `deadline` (steady clock, ms; < 0: forever).
void read_all(int fd, void* data, std::size_t count, long long deadline) {
  auto* bytes = static_cast<std::uint8_t*>(data);
  while (count > 0) {
    if (deadline >= 0) {
      const long long now = std::chrono::duration_cast<std::chrono::milliseconds>(
                                std::chrono::steady_clock::now().time_since_epoch())
                                .count();
      if (now >= deadline) throw ChannelError(kTimeLimit);
      pollfd waiting{fd, POLLIN, 0};
      const int ready =
          ::poll(&waiting, 1, static_cast<int>(std::min<long long>(deadline - now, 1000)));
      if (ready < 0 && errno != EINTR)
        throw ChannelError(std::string("poll: ") + std::strerror(errno));
      if (ready <= 0) continue;
    }
    const ssize_t got = ::read(fd, bytes, count);
    if (got < 0 && errno == EINTR) continue;
    if (got == 0) throw ChannelError("the other side closed the channel");
    if (got < 0) throw ChannelError(std::string("read: ") + std::strerror(errno));
    bytes += got;
    count -= static_cast<std::size_t>(got);
  }
}

template <class T>
void append(std::vector<std::uint8_t>& data, T value) {
  const std::size_t at = data.size();
  data.resize(at + sizeof(T));
  std::memcpy(data.data() + at, &value, sizeof(T));
}

}  // namespace

void Writer::u32(std::uint32_t value) {
  append(data_, value);
}
void Writer::i64(std::int64_t value) {
  append(data_, value);
}
void Writer::f64(double value) {
  append(data_, value);
}

void Writer::str(const std::string& text) {
  bytes(text.data(), text.size());
}

void Writer::bytes(const void* data, std::size_t count) {
  append(data_, static_cast<std::uint64_t>(count));
  if (count > 0) std::memcpy(raw(count), data, count);
}

std::uint8_t* Writer::raw(std::size_t count) {
  const std::size_t at = data_.size();
  data_.resize(at + count);
  return data_.data() + at;
}

const std::uint8_t* Reader::take(std::size_t count) {
  if (count > size_ - offset_) throw ChannelError("malformed message: a field runs past its end");
  const std::uint8_t* at = data_ + offset_;
  offset_ += count;
  return at;
}

std::uint32_t Reader::u32() {
  std::uint32_t value;
  std::memcpy(&value, take(sizeof value), sizeof value);
  return value;
}

std::int64_t Reader::i64() {
  std::int64_t value;
  std::memcpy(&value, take(sizeof value), sizeof value);
  return value;
}

double Reader::f64() {
  double value;
  std::memcpy(&value, take(sizeof value), sizeof value);
  return value;
}

std::pair<const std::uint8_t*, std::size_t> Reader::bytes(std::size_t max_length) {
  std::uint64_t length;
  std::memcpy(&length, take(sizeof length), sizeof length);
  if (length > max_length) throw ChannelError("malformed message: a field longer than allowed");
  return {take(static_cast<std::size_t>(length)), static_cast<std::size_t>(length)};
}

std::string Reader::str(std::size_t max_length) {
  const auto [data, length] = bytes(max_length);
  return {reinterpret_cast<const char*>(data), length};
}

void send_message(int fd, Op op, const std::vector<std::uint8_t>& payload) {
  std::uint8_t header[16];
  const std::uint32_t magic = kMagic, code = static_cast<std::uint32_t>(op);
  const std::uint64_t length = payload.size();
  std::memcpy(header, &magic, 4);
  std::memcpy(header + 4, &code, 4);
  std::memcpy(header + 8, &length, 8);
  write_all(fd, header, sizeof header);
  if (!payload.empty()) write_all(fd, payload.data(), payload.size());
}

Message receive_message(int fd, std::uint64_t max_payload, long long deadline_ms) {
  long long deadline = -1;
  if (deadline_ms >= 0) {
    deadline = std::chrono::duration_cast<std::chrono::milliseconds>(
                   std::chrono::steady_clock::now().time_since_epoch())
                   .count() +
               deadline_ms;
  }
  std::uint8_t header[16];
  read_all(fd, header, sizeof header, deadline);
  std::uint32_t magic, code;
  std::uint64_t length;
  std::memcpy(&magic, header, 4);
  std::memcpy(&code, header + 4, 4);
  std::memcpy(&length, header + 8, 8);
  if (magic != kMagic) throw ChannelError("malformed message: bad header");
  if (length > max_payload) throw ChannelError("malformed message: payload over the limit");
  Message message;
  message.op = static_cast<Op>(code);
  message.payload.resize(static_cast<std::size_t>(length));
  if (length > 0) read_all(fd, message.payload.data(), message.payload.size(), deadline);
  return message;
}

bool is_time_limit(const ChannelError& error) {
  return std::strcmp(error.what(), kTimeLimit) == 0;
}

}  // namespace grader
