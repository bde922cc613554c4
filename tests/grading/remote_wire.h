// What the remote declarations' tests share (remote_declarations_test.cpp, remote_labNN_test.cpp):
// a Call through the channel's bytes, a declaration filled at random and compared member by
// member, and the one line a refusal says.
#pragma once

#include "grader/channel.h"
#include "grader/remote.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <string>
#include <tuple>
#include <type_traits>
#include <vector>

namespace remote_wire {

using grader::Call;

// The bytes the referee writes for `call`.
inline std::vector<std::uint8_t> encoded(const Call& call) {
  grader::Writer out;
  call.write(out);
  return out.data();
}

// Through the bytes the referee writes and the runner reads.
inline Call over_the_wire(const Call& call) {
  const std::vector<std::uint8_t> bytes = encoded(call);
  grader::Reader in(bytes);
  return Call::read(in);
}

// Every member of the declaration `Args` (its variant and kWire) equal in `a` and `b` (a group by
// its operator==).
template <class Args>
void expect_fields_equal(const Args& a, const Args& b) {
  if constexpr (grader::remote::detail::NamesVariant<Args>) {
    EXPECT_EQ(a.variant, b.variant);
  }
  std::size_t index = 0;
  auto expect_equal = [&](auto member) {
    EXPECT_TRUE(a.*member == b.*member) << "member " << index << " of " << Args::kFunction;
    ++index;
  };
  std::apply([&](auto... members) { (expect_equal(members), ...); }, Args::kWire);
  EXPECT_EQ(index, std::tuple_size_v<decltype(Args::kWire)>);
}

// Fresh values for every member: ints anywhere in an int's range (int64s past it), buffer ids
// among the real ones and the two sentinels, operands' offsets anywhere from 0, lists and host data
// of any length (the empty one too); a group's members each their own.
template <class Args>
Args random_args(std::mt19937_64& random) {
  Args args{};
  if constexpr (grader::remote::detail::NamesVariant<Args>)
    args.variant = "variant" + std::to_string(random() % 100);
  auto buffer_id = [&] { return static_cast<std::int64_t>(random() % 1000) - 2; };
  auto fill = [&](auto& member) {
    using Type = std::remove_cvref_t<decltype(member)>;
    if constexpr (std::is_same_v<Type, int>)
      member = static_cast<int>(random());
    else if constexpr (std::is_same_v<Type, std::int64_t>)
      member = static_cast<std::int64_t>(random());
    else if constexpr (std::is_same_v<Type, double>)
      member = std::uniform_real_distribution<double>(-1e3, 1e3)(random);
    else if constexpr (std::is_same_v<Type, grader::remote::Operand>)
      member = {buffer_id(), static_cast<std::int64_t>(random() >> 1)};
    else if constexpr (std::is_same_v<Type, grader::remote::IntList>) {
      member.values.resize(random() % 7);
      for (std::int64_t& value : member.values) value = static_cast<std::int64_t>(random());
    } else if constexpr (std::is_same_v<Type, grader::remote::HostData>) {
      member.bytes.resize(random() % 64);
      for (std::uint8_t& byte : member.bytes) byte = static_cast<std::uint8_t>(random());
    } else
      member = grader::remote::Buffer{buffer_id()};
  };
  grader::remote::detail::for_each_member(args, fill);
  return args;
}

// 100 random calls of `Args` packed, sent and unpacked to what was packed.
template <class Args>
void expect_round_trip(std::uint64_t seed) {
  std::mt19937_64 random(seed);
  for (int trial = 0; trial < 100; ++trial) {
    const Args sent = random_args<Args>(random);
    const Call call = over_the_wire(grader::remote::to_call(sent));
    EXPECT_EQ(call.function, Args::kFunction);
    expect_fields_equal(sent, grader::remote::from_call<Args>(call));
  }
}

// `declared` (a declaration packed) is byte for byte `sent` (the Call a hand-written proxy built).
inline void expect_same_wire(const Call& declared, const Call& sent) {
  EXPECT_EQ(declared.label(), sent.label());
  EXPECT_EQ(declared.ints, sent.ints) << declared.label();
  EXPECT_EQ(declared.reals, sent.reals) << declared.label();
  EXPECT_EQ(declared.buffers, sent.buffers) << declared.label();
  EXPECT_EQ(declared.blobs, sent.blobs) << declared.label();
  EXPECT_EQ(encoded(declared), encoded(sent)) << declared.label();
}

// The one line a refusal says, or "" when `unpack` accepted the call.
template <class Unpack>
std::string refusal(Unpack unpack) {
  try {
    unpack();
  } catch (const grader::ChannelError& error) {
    return error.what();
  }
  return "";
}

}  // namespace remote_wire
