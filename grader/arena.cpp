#include "grader/arena.h"

#include "grader/channel.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string>
#include <utility>

namespace grader {

namespace {

// Growth in steps, so that a run of slightly larger operands does not remap every time.
constexpr std::size_t kStep = std::size_t{64} << 20;

std::string failed(const char* what) {
  return std::string(what) + ": " + std::strerror(errno);
}

}  // namespace

Arena Arena::create() {
  const int fd = memfd_create("cudalabs-operands", MFD_CLOEXEC | MFD_ALLOW_SEALING);
  if (fd < 0) throw ChannelError(failed("memfd_create (the operands' arena)"));
  // The runner holds the file too: shrunk under the referee's mapping, it would end the referee
  // with SIGBUS. Sealed against shrinking, it only grows.
  if (fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_SEAL) != 0) {
    const std::string message = failed("sealing the operands' arena");
    ::close(fd);
    throw ChannelError(message);
  }
  return Arena(fd);
}

Arena Arena::adopt(int fd) {
  return Arena(fd);
}

Arena::Arena(Arena&& other) noexcept
    : fd_(std::exchange(other.fd_, -1)),
      data_(std::exchange(other.data_, nullptr)),
      mapped_(std::exchange(other.mapped_, 0)),
      mapped_hook_(std::move(other.mapped_hook_)),
      unmapping_hook_(std::move(other.unmapping_hook_)) {}

Arena& Arena::operator=(Arena&& other) noexcept {
  if (this != &other) {
    unmap();
    if (fd_ >= 0) ::close(fd_);
    fd_ = std::exchange(other.fd_, -1);
    data_ = std::exchange(other.data_, nullptr);
    mapped_ = std::exchange(other.mapped_, 0);
    mapped_hook_ = std::move(other.mapped_hook_);
    unmapping_hook_ = std::move(other.unmapping_hook_);
  }
  return *this;
}

Arena::~Arena() {
  unmap();
  if (fd_ >= 0) ::close(fd_);
}

void Arena::on_mapping(MappingHook mapped, MappingHook unmapping) {
  mapped_hook_ = std::move(mapped);
  unmapping_hook_ = std::move(unmapping);
  if (data_ != nullptr && mapped_hook_) mapped_hook_(data_, mapped_);
}

void Arena::unmap() {
  if (data_ == nullptr) return;
  if (unmapping_hook_) unmapping_hook_(data_, mapped_);
  munmap(data_, mapped_);
  data_ = nullptr;
  mapped_ = 0;
}

void Arena::map(std::size_t bytes) {
  unmap();
  void* at = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd_, 0);
  if (at == MAP_FAILED) throw ChannelError(failed("mmap (the operands' arena)"));
  data_ = static_cast<std::uint8_t*>(at);
  mapped_ = bytes;
  if (mapped_hook_) mapped_hook_(data_, mapped_);
}

std::uint8_t* Arena::reserve(std::size_t bytes) {
  if (bytes == 0) bytes = 1;
  if (bytes > mapped_) {
    const std::size_t size = (bytes + kStep - 1) / kStep * kStep;
    if (ftruncate(fd_, static_cast<off_t>(size)) != 0)
      throw ChannelError(failed("ftruncate (the operands' arena)"));
    map(size);
  }
  return data_;
}

std::uint8_t* Arena::view(std::size_t bytes) {
  if (bytes == 0) bytes = 1;
  if (bytes > mapped_) {
    struct stat info {};
    if (fd_ < 0 || fstat(fd_, &info) != 0)
      throw ChannelError("no operands' arena on file descriptor " + std::to_string(kArenaFd));
    const auto size = static_cast<std::size_t>(info.st_size);
    if (size < bytes)
      throw ChannelError("the operands' arena holds " + std::to_string(size) + " bytes, not " +
                         std::to_string(bytes));
    map(size);
  }
  return data_;
}

}  // namespace grader
