#include "grader/call.h"

namespace grader {

namespace {
constexpr std::uint32_t kMaxArguments = 64;
}

void Call::write(Writer& out) const {
  out.str(function);
  out.str(variant);
  out.u32(static_cast<std::uint32_t>(ints.size()));
  for (std::int64_t value : ints) out.i64(value);
  out.u32(static_cast<std::uint32_t>(reals.size()));
  for (double value : reals) out.f64(value);
  out.u32(static_cast<std::uint32_t>(buffers.size()));
  for (std::int64_t id : buffers) out.i64(id);
  out.u32(static_cast<std::uint32_t>(blobs.size()));
  for (const auto& blob : blobs) out.bytes(blob.data(), blob.size());
}

Call Call::read(Reader& in) {
  Call call;
  call.function = in.str(256);
  call.variant = in.str(256);
  auto count = [&in] {
    const std::uint32_t n = in.u32();
    if (n > kMaxArguments) throw ChannelError("malformed call: too many arguments");
    return n;
  };
  for (std::uint32_t i = 0, n = count(); i < n; ++i) call.ints.push_back(in.i64());
  for (std::uint32_t i = 0, n = count(); i < n; ++i) call.reals.push_back(in.f64());
  for (std::uint32_t i = 0, n = count(); i < n; ++i) call.buffers.push_back(in.i64());
  for (std::uint32_t i = 0, n = count(); i < n; ++i) {
    const auto [data, size] = in.bytes();
    call.blobs.emplace_back(data, data + size);
  }
  return call;
}

std::string Call::label() const {
  return variant.empty() ? function : function + " " + variant;
}

}  // namespace grader
